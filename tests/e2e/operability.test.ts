import t from 'tap'
import { postTrackers, readAfter, startTestServer } from '../support/server.ts'

t.test('expand[] takes every prefix of a listed path, as clients send them', async (t) => {
  const server = await startTestServer(t)
  await postTrackers(server, [{ order_number: 'X-1', tracking_number: 'T', carrier_code: 'ups' }])
  for (const path of ['fulfillments', 'fulfillments.trackers', 'fulfillments.trackers.events', 'notifications']) {
    const page = await server.request('GET', `/v2/orders?expand[]=${path}`)
    t.equal(page.status, 200, path)
  }
  const page = await server.request('GET', '/v2/orders?expand%5B%5D=fulfillments.trackers')
  t.match(page.body.data[0].fulfillments.data[0].trackers.data[0], { object: 'tracker', tracking_number: 'T' })
  t.equal((await server.request('GET', '/v2/orders?expand[]=fulfillments.nope')).status, 400)
})

t.test('as_of=<created_at> shows the resource: a second is read to its end', async (t) => {
  const server = await startTestServer(t)
  const created = await postTrackers(server, [{ order_number: 'AS-1', tracking_number: 'T' }])
  const order = (await readAfter(server, '/v2/orders?order_number=AS-1', created.position)).body.data[0]
  const then = await server.request('GET', `/v2/orders/${order.id}?as_of=${order.created_at}`)
  t.equal(then.status, 200)
  t.equal(then.body.order_number, 'AS-1')
  t.equal((await server.request('GET', `/v2/orders/${order.id}?as_of=${order.created_at - 1}`)).status, 404)
})
