import t from 'tap'
import { rotateKeys } from '../../commands/accounts/change-account.ts'
import { waitForJob } from '../support/jobs.ts'
import { postTrackers, readAfter, startTestServer } from '../support/server.ts'

/*
 * Tenancy across every route that takes an id, a cursor, a tracking number or
 * a job id: another account's value answers exactly as a missing one. Public
 * keys are refused on private routes; rotated keys are refused everywhere.
 */

t.test("another account's ids, cursors and tracking numbers answer exactly as missing ones", async (t) => {
  const server = await startTestServer(t)
  const mine = await postTrackers(server, [
    { order_number: 'T-1', tracking_number: 'TN-T1', carrier_code: 'colissimo', email: 'a@example.com' },
  ])
  const orderId = mine.body.trackers[0].order_id as number
  const trackerId = mine.body.trackers[0].id as number
  const endpoint = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: 'https://93.184.216.34/hook' },
  })
  const job = await server.request('POST', '/v2/orders/batch_create', { body: { orders: [{ merchant_id: 'M' }] } })
  await waitForJob(server, job.body.job_id)
  const order = await readAfter(server, `/v2/orders/${orderId}?expand[]=notifications`, mine.position)
  const notificationId = order.body.notifications.data[0].id as number

  const other = await server.newAccount()
  const missing = 4_000_000_000
  const asOther = (method: string, path: string, body?: unknown) =>
    server.request(method, path, { key: other.private_key, body })
  const same = async (
    method: string,
    template: (id: number | string) => string,
    theirs: number | string,
    body?: unknown,
  ) => {
    const a = await asOther(method, template(theirs), body)
    const b = await asOther(method, template(missing), body)
    t.equal(a.status, b.status, `${method} ${template('{id}')}: the same status as a missing id`)
    t.same(a.body, b.body, `${method} ${template('{id}')}: the same body`)
  }
  await same('GET', (id) => `/v2/orders/${id}`, orderId)
  await same('GET', (id) => `/v2/orders/${id}/history`, orderId)
  await same('GET', (id) => `/v2/jobs/${id}`, job.body.job_id)
  await same('GET', (id) => `/v2/webhook_endpoints/${id}`, endpoint.body.id)
  await same('GET', (id) => `/v2/webhook_endpoints/${id}/deliveries`, endpoint.body.id)
  await same('PATCH', (id) => `/v2/webhook_endpoints/${id}`, endpoint.body.id, { status: 'disabled' })
  await same('DELETE', (id) => `/v2/webhook_endpoints/${id}`, endpoint.body.id)
  await same('POST', (id) => `/v2/webhook_endpoints/${id}/test`, endpoint.body.id)
  await same('POST', (id) => `/v2/webhook_endpoints/${id}/rotate_secret`, endpoint.body.id)
  await same('POST', (id) => `/v2/webhook_endpoints/${id}/replay`, endpoint.body.id, { since: 0 })
  await same('GET', (id) => `/v2/notifications/${id}/preview`, notificationId)
  await same('POST', (id) => `/v2/trackers/${id}/refresh`, trackerId)
  for (const list of ['/v2/orders', '/v2/trackers', '/v2/webhook_endpoints']) {
    for (const cursor of ['starting_after', 'ending_before']) {
      await same('GET', (id) => `${list}?${cursor}=${id}`, orderId)
    }
  }
  await same('GET', (n) => `/v2/trackers?tracking_number=${n}`, 'TN-T1')
  const pushed = await asOther('POST', '/v2/trackers/events', {
    events: [{ tracking_number: 'TN-T1', event_type_code: 'transit', happened_at: 1_795_000_000 }],
  })
  t.match(pushed.body.events, [{ status: 'unknown_tracker', tracker_ids: [] }], "another account's number is unknown")
})

t.test('public keys are refused on private routes; rotated keys everywhere', async (t) => {
  const server = await startTestServer(t)
  const privateRoutes: [string, string, unknown?][] = [
    ['POST', '/v1/trackers', { trackers: [] }],
    ['POST', '/v2/trackers/events', { events: [] }],
    ['POST', '/v2/orders', { merchant_id: 'M' }],
    ['POST', '/v2/orders/batch_create', { orders: [{}] }],
    ['GET', '/v2/orders'],
    ['GET', '/v2/trackers'],
    ['GET', '/v2/jobs/1'],
    ['POST', '/v2/webhook_endpoints', { url: 'https://example.com/h' }],
    ['GET', '/v2/webhook_endpoints'],
    ['GET', '/v2/notification_types'],
    ['PATCH', '/v2/notification_types/shipped', { enabled: false }],
    ['GET', '/v2/notifications/1/preview'],
    ['POST', '/v2/trackers/1/refresh'],
    ['PATCH', '/v2/account', { language_code: 'fr' }],
  ]
  for (const [method, path, body] of privateRoutes) {
    const response = await server.request(method, path, { key: server.publicKey, body })
    t.equal(response.status, 403, `${method} ${path} refuses the public key`)
  }
  const rotated = await rotateKeys(server.runtime, server.accountId)
  for (const key of [server.privateKey, server.publicKey]) {
    const refused = await server.request('GET', '/v2/orders', { key })
    t.equal(refused.status, 401, 'a rotated key is refused')
  }
  t.equal((await server.request('GET', '/v2/orders', { key: rotated.private_key })).status, 200, 'the new key works')
})
