import { connect } from 'node:net'
import t from 'tap'
import { startReceiver } from '../support/receiver.ts'
import { until } from '../support/progress.ts'
import { postTrackers, recordTrackingEvents, startTestServer, type TestServer } from '../support/server.ts'
import { nowSeconds } from '../support/time.ts'

/*
 * GET /v2/events, /v2/events/{id} and the live /v2/events/stream, as an
 * integrator pulls and follows them: the same messages and ids as the
 * webhooks, every type whether subscribed or not, the list conventions,
 * and a stream that resumes after Last-Event-ID with no gap and no repeat.
 */

interface PublicEvent {
  id: string
  object: 'event'
  type: string
  timestamp: string
  position: string
  data: { object: { id: number; tracking_number?: string; order_number?: string } }
}

async function allEvents(server: TestServer, query = '') {
  const seen: PublicEvent[] = []
  let cursor = ''
  for (;;) {
    const page = await server.request('GET', `/v2/events?limit=3${query}${cursor}`)
    if (page.status !== 200) throw new Error(JSON.stringify(page.body))
    seen.push(...page.body.data)
    if (!page.body.has_more) return seen
    cursor = `&ending_before=${seen.at(-1)!.position}`
  }
}

/** A live stream read as a client reads it: each message's id, event and data, and the comments. */
function follow(server: TestServer, headers: Record<string, string> = {}, query = '') {
  const controller = new AbortController()
  const messages: { id: string; event: string; data: PublicEvent }[] = []
  const comments: string[] = []
  const opened = fetch(`${server.url}/v2/events/stream${query}`, {
    headers: { authorization: `Bearer ${server.privateKey}`, ...headers },
    signal: controller.signal,
  })
  const done = opened.then(async (response) => {
    if (response.status !== 200) return response.status
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of response.body!) {
        buffer += decoder.decode(chunk, { stream: true })
        let end = buffer.indexOf('\n\n')
        while (end >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const fields = Object.fromEntries(
            block
              .split('\n')
              .filter((l) => !l.startsWith(':'))
              .map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 2)]),
          )
          if (block.startsWith(':')) comments.push(block)
          else if (fields.id && fields.event && fields.data)
            messages.push({ id: fields.id, event: fields.event, data: JSON.parse(fields.data) })
          end = buffer.indexOf('\n\n')
        }
      }
    } catch {
      // aborted by the test
    }
    return 200
  })
  return { opened, done, messages, comments, close: () => controller.abort() }
}

t.test('the events are the webhooks’ messages, every type, newest first, filtered and paged', async (t) => {
  const server = await startTestServer(t, { env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true' } })
  const receiver = await startReceiver(t)
  const endpoint = await server.request('POST', '/v2/webhook_endpoints', {
    body: { url: receiver.url, enabled_events: ['tracker.created', 'tracker.event_added'] },
  })
  t.equal(endpoint.status, 201)
  await postTrackers(server, [
    { order_number: 'EV-1', tracking_number: 'EV0001', carrier_code: 'dhl', email: 'a@example.com' },
    { order_number: 'EV-2', tracking_number: 'EV0002', carrier_code: 'dhl', email: 'b@example.com' },
  ])
  await recordTrackingEvents(server, [
    { tracking_number: 'EV0001', event_type_code: 'transit', happened_at: nowSeconds() - 600, message: 'In transit' },
  ])
  const received = await receiver.waitFor(3)

  const events = await allEvents(server)
  const types = events.map((e) => e.type)
  t.ok(types.includes('order.created'), 'a type no endpoint takes is there too')
  t.notOk(types.includes('order.updated'), 'an upsert’s creation tells of the order once')
  t.same(
    events.map((e) => Number(e.position)),
    events.map((e) => Number(e.position)).sort((a, b) => b - a),
    'newest first',
  )
  t.equal(new Set(events.map((e) => e.id)).size, events.length, 'each once across pages')
  for (const message of received) {
    const event = events.find((e) => e.id === message.headers['webhook-id'])
    t.ok(event, `${message.headers['webhook-id']} (${message.json.type}) is an event`)
    const { id: _, object: __, ...body } = event!
    t.same(body, message.json, 'the very message the webhook carried')
  }

  const one = await server.request('GET', `/v2/events/${events[0]!.id}`)
  t.same(one.body, events[0])
  const other = await server.newAccount()
  const theirs = await server.request('GET', `/v2/events/${events[0]!.id}`, { key: other.private_key })
  t.equal(theirs.status, 404, 'another account’s event is not found')
  t.same((await server.request('GET', '/v2/events', { key: other.private_key })).body.data, [])
  const malformed = await server.request('GET', '/v2/events/evt_12')
  t.equal(malformed.status, 400)
  t.match(malformed.body.errors.id, /msg_/)

  const trackerEvents = await allEvents(server, '&type=tracker.created,tracker.event_added')
  t.same(new Set(trackerEvents.map((e) => e.type)), new Set(['tracker.created', 'tracker.event_added']))
  const unknown = await server.request('GET', '/v2/events?type=tracker.teleported')
  t.equal(unknown.status, 400)
  t.match(unknown.body.errors, { type: /tracker.teleported is not a message type; types are order.created/ })

  const ev1 = events.find((e) => e.type === 'tracker.created' && e.data.object.tracking_number === 'EV0001')!
  const ids = (list: PublicEvent[]) => list.map((e) => e.id)
  const ofTracker = await allEvents(server, `&tracker_id=${ev1.data.object.id}`)
  t.same(
    ids(ofTracker),
    ids(events.filter((e) => e.type.startsWith('tracker.') && e.data.object.id === ev1.data.object.id)),
    'a tracker’s events: exactly those of the whole list about it, newest first, paged',
  )
  t.same(
    new Set(ofTracker.map((e) => e.type)),
    new Set(['tracker.created', 'tracker.event_added', 'tracker.status_changed']),
  )
  const order = events.find((e) => e.type === 'order.created' && e.data.object.order_number === 'EV-1')!
  const ofOrder = await allEvents(server, `&order_id=${order.data.object.id}`)
  t.same(
    ids(ofOrder),
    ids(events.filter((e) => e.data.object.id === order.data.object.id || e.data.object.id === ev1.data.object.id)),
    'an order’s events: its own and its trackers’, newest first, paged',
  )
  const filtered = await allEvents(server, `&order_id=${order.data.object.id}&type=tracker.created`)
  t.same(ids(filtered), [ev1.id], 'with the other filters applied')
  const ev2 = events.find((e) => e.type === 'tracker.created' && e.data.object.tracking_number === 'EV0002')!
  t.same(await allEvents(server, `&order_id=${order.data.object.id}&tracker_id=${ev2.data.object.id}`), [])
  t.same((await server.request('GET', '/v2/events?order_id=999999')).body.data, [], 'an order not found: none')
  t.same((await server.request('GET', '/v2/events?tracker_id=999999')).body.data, [], 'a tracker not found: none')
  const later = await server.request('GET', `/v2/events?created_at[gte]=${nowSeconds() + 3600}`)
  t.same(later.body.data, [])
  const earlier = await server.request('GET', `/v2/events?created_at[lt]=${nowSeconds() + 3600}&limit=100`)
  t.equal(earlier.body.data.length, events.length)

  const document = (await fetch(`${server.url}/openapi.json`).then((r) => r.json())) as {
    components: { schemas: Record<string, unknown> }
  }
  t.ok(
    ['OrderCreatedEvent', 'TrackerDelayClearedEvent', 'NotificationDispatchedEvent', 'WebhookTestEvent'].every(
      (name) => name in document.components.schemas,
    ),
    'a schema per message type in the OpenAPI document',
  )
  const newest = await server.request('GET', '/v2/events?limit=2')
  const back = await server.request('GET', `/v2/events?limit=2&starting_after=${events[3]!.position}`)
  t.same(
    back.body.data.map((e: PublicEvent) => e.id),
    [events[1]!.id, events[2]!.id],
    'starting_after goes back up, newest first',
  )
  t.equal(newest.body.has_more, true)
})

t.test('the live stream: resumes after Last-Event-ID with no gap and no repeat, heartbeats, a cap', async (t) => {
  const server = await startTestServer(t, {
    env: { SHIPLOG_EVENT_STREAM_HEARTBEAT: '1', SHIPLOG_EVENT_STREAMS_MAX: '2' },
  })
  await postTrackers(server, [{ order_number: 'LS-0', tracking_number: 'LS0000', carrier_code: 'dhl' }])
  const first = follow(server)
  t.equal((await first.opened).status, 200)
  t.equal((await first.opened).headers.get('content-type'), 'text/event-stream; charset=utf-8')
  await postTrackers(
    server,
    Array.from({ length: 5 }, (_, i) => ({ order_number: `LS-${i + 1}`, tracking_number: `LS000${i + 1}` })),
  )
  await until(
    async () => first.messages.length,
    (n) => n >= 10,
  )
  t.notOk(
    first.messages.some((m) => m.data.data.object.tracking_number === 'LS0000'),
    'from now, not before',
  )
  const cut = first.messages[3]!
  first.close()

  await postTrackers(server, [{ order_number: 'LS-9', tracking_number: 'LS0009' }])
  const second = follow(server, { 'last-event-id': cut.id })
  const all = await allEvents(server)
  const expected = all
    .filter((e) => Number(e.position) > Number(cut.data.position))
    .map((e) => e.id)
    .reverse()
  await until(
    async () => second.messages.length,
    (n) => n >= expected.length,
  )
  t.same(
    second.messages.map((m) => m.id),
    expected,
    'every event after the last one seen, in order, none twice',
  )
  t.ok(second.messages.every((m) => m.event === m.data.type && m.id === m.data.id))
  await until(
    async () => second.comments.length,
    (n) => n >= 1,
  )
  t.equal(second.comments[0], ': heartbeat')

  const third = follow(server, {}, `?last_event_id=${cut.id}&type=order.created`)
  t.equal((await third.opened).status, 200)
  const capped = follow(server)
  t.equal(await capped.done, 429, 'past the cap, 429')
  await until(
    async () => third.messages.length,
    (n) => n >= 1,
  )
  t.ok(
    third.messages.every((m) => m.event === 'order.created'),
    'filtered as the list',
  )
  const badId = follow(server, { 'last-event-id': 'yesterday' })
  t.equal(await badId.done, 400)
  second.close()
  third.close()

  // An order's events live: read from its stream, not from the list's index.
  const order = all.find((e) => e.type === 'order.created' && e.data.object.order_number === 'LS-2')!
  // The two streams just closed leave the cap once the server has seen their connections go.
  const openOfOrder = async (tries = 50): Promise<ReturnType<typeof follow>> => {
    const stream = follow(server, {}, `?order_id=${order.data.object.id}`)
    if ((await stream.opened).status === 200 || tries === 1) return stream
    await new Promise((resolve) => setTimeout(resolve, 100))
    return openOfOrder(tries - 1)
  }
  const ofOrder = await openOfOrder()
  t.equal((await ofOrder.opened).status, 200)
  await recordTrackingEvents(server, [
    { tracking_number: 'LS0003', event_type_code: 'transit', happened_at: nowSeconds() - 60, message: 'In transit' },
    { tracking_number: 'LS0002', event_type_code: 'transit', happened_at: nowSeconds() - 60, message: 'In transit' },
  ])
  await until(
    async () => ofOrder.messages.length,
    (n) => n >= 2,
  )
  t.same(
    ofOrder.messages.map((m) => [m.event, m.data.data.object.tracking_number]),
    [
      ['tracker.event_added', 'LS0002'],
      ['tracker.status_changed', 'LS0002'],
    ],
    'only that order’s, from now, in order',
  )
  ofOrder.close()
})

t.test('a client that stops reading is closed, not waited for; the rest of the service goes on', async (t) => {
  const server = await startTestServer(t)
  const port = Number(new URL(server.url).port)
  const socket = connect(port, '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(
    `GET /v2/events/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.privateKey}\r\n\r\n`,
  )
  socket.once('data', () => socket.pause())
  const ended = new Promise((resolve) => socket.once('close', resolve))
  for (let batch = 0; batch < 6; batch++) {
    const answer = await postTrackers(
      server,
      Array.from({ length: 1000 }, (_, i) => ({
        order_number: `SL-${batch}-${i}`,
        tracking_number: `SL${batch}${String(i).padStart(5, '0')}`,
        carrier_code: 'dhl',
        email: `slow${i}@example.com`,
        first_name: 'A long enough name to make the messages weigh',
      })),
    )
    t.ok(answer.status < 300, `batch ${batch}: accepted while the reader sleeps`)
  }
  socket.resume()
  await ended
  t.pass('the stream was closed once the client fell behind')
})

t.test('the service stopping closes the open streams: it does not wait for their clients', async (t) => {
  const server = await startTestServer(t)
  const stream = follow(server)
  t.equal((await stream.opened).status, 200)
  const started = Date.now()
  await server.close()
  t.ok(Date.now() - started < 5000, `stopped in ${Date.now() - started} ms with a stream open`)
  t.equal(await stream.done, 200, 'the client saw its stream end')
})
