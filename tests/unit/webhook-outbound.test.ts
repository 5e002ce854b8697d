import { once } from 'node:events'
import { createServer } from 'node:http'
import t, { type Test } from 'tap'
import {
  INNER_NAME,
  postJson,
  receiverConnections,
  refusedAddress,
  refusedReceiver,
} from '../../shared/infra/webhooks/outbound.ts'

/** A loopback HTTP server answering every request with `answer`; counts what it received. */
async function server(t: Test, answer: (res: import('node:http').ServerResponse) => void) {
  const seen = { requests: 0, connections: 0 }
  const s = createServer((req, res) => {
    seen.requests++
    req.resume()
    answer(res)
  })
  s.on('connection', () => seen.connections++)
  s.listen(0, '127.0.0.1')
  await once(s, 'listening')
  t.teardown(() => {
    s.closeAllConnections()
    s.close()
  })
  return { port: (s.address() as { port: number }).port, seen }
}

t.test('only public unicast addresses may receive webhooks', async (t) => {
  for (const address of [
    '127.0.0.1',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd12::1',
    '::ffff:127.0.0.1',
    '100.64.0.1',
    '224.0.0.1',
  ]) {
    t.ok(refusedAddress(address), `${address} refused`)
  }
  for (const address of ['93.184.216.34', '2606:4700::1111', '::5db8:d822'])
    t.equal(refusedAddress(address), undefined, address)
})

t.test('every IPv6 form that embeds a private IPv4 address is refused, as a URL writes it', async (t) => {
  for (const url of [
    'http://[::127.0.0.1]/',
    'http://[::7f00:1]/',
    'http://[::10.0.0.1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:192.168.1.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[2002:7f00:1::]/',
  ]) {
    t.ok(await refusedReceiver(url, false), `${url} refused when created`)
    const sent = await postJson(url, {}, '{}', { allowPrivate: false })
    t.match(sent, { status_code: null, error: /^refused: /, refused: true }, `${url} refused when sent`)
  }
  t.match(refusedAddress('::7f00:1'), /embeds a loopback IPv4 address/)
})

t.test('a URL that cannot be sent to is settled as refused, never left hanging', async (t) => {
  t.same(await postJson('not a url', {}, '{}', { allowPrivate: false }), {
    status_code: null,
    error: 'refused: not a url is not a URL',
    refused: true,
  })
  t.match(await postJson('http://127.0.0.1:1/h', {}, '{}', { allowPrivate: false }), {
    status_code: null,
    error: 'refused: 127.0.0.1 is a loopback address',
    refused: true,
  })
})

t.test('a name is judged by what it resolves to, before creation and again at send time', async (t) => {
  t.match(await refusedReceiver('http://localhost:1/h', false), {
    reason: INNER_NAME,
    detail: /localhost resolves to .*loopback/,
  })
  t.notMatch((await refusedReceiver('http://localhost:1/h', false))!.reason, /127\.0\.0\.1|::1/, 'no address told')
  t.equal(await refusedReceiver('http://localhost:1/h', true), undefined, 'allowed by the operator')
  t.equal(
    await refusedReceiver('http://no-such-host.invalid/h', false),
    undefined,
    'a name that does not resolve yet is let through: it is checked again at every send',
  )
  const { port, seen } = await server(t, (res) => res.end())
  const refused = await postJson(`http://localhost:${port}/h`, {}, '{}', { allowPrivate: false })
  t.same(
    refused,
    { status_code: null, error: `refused: ${INNER_NAME}`, refused: true },
    'what it resolves to is not told',
  )
  t.equal(seen.requests, 0, 'nothing reached the inner address')
  const allowed = await postJson(`http://localhost:${port}/h`, {}, '{}', { allowPrivate: true })
  t.same(allowed, { status_code: 200, error: null })
})

t.test('a redirect is not followed, and counts as a failure', async (t) => {
  const { port } = await server(t, (res) => {
    res.writeHead(301, { location: 'http://169.254.169.254/' })
    res.end()
  })
  t.same(await postJson(`http://127.0.0.1:${port}/`, {}, '{}', { allowPrivate: true }), {
    status_code: 301,
    error: 'redirects are not followed',
  })
})

t.test('a receiver that breaks its answer off after the status has still answered', async (t) => {
  const { port } = await server(t, (res) => {
    res.writeHead(503, { 'content-length': '100' })
    res.write('x'.repeat(10), () => res.socket?.destroy())
  })
  t.same(await postJson(`http://127.0.0.1:${port}/`, {}, '{}', { allowPrivate: true }), {
    status_code: 503,
    error: 'answered 503',
  })
})

t.test('a receiver that does not answer in time is given up on', async (t) => {
  const { port } = await server(t, () => {})
  const outcome = await postJson(`http://127.0.0.1:${port}/`, {}, '{}', { allowPrivate: true, timeoutMs: 200 })
  t.same(outcome, { status_code: null, error: 'no answer within 0.2 s' })
})

t.test("an endpoint's messages reuse its few keep-alive connections", async (t) => {
  const { port, seen } = await server(t, (res) => res.end())
  const connections = receiverConnections(4, true)
  t.teardown(() => connections.destroy())
  const url = `http://127.0.0.1:${port}/h`
  for (let round = 0; round < 5; round++) {
    const sent = await Promise.all(
      Array.from({ length: 8 }, () => postJson(url, {}, '{}', { allowPrivate: true, connections })),
    )
    t.ok(
      sent.every((s) => s.status_code === 200),
      `round ${round}: all answered`,
    )
  }
  t.equal(seen.requests, 40)
  t.ok(seen.connections <= 4, `40 messages over ${seen.connections} connections, at most 4`)
})

t.test(
  'an answer that never ends is read up to a limit, and its status counts',
  // Without the limit the read would wait for the receiver's 10 s.
  { timeout: 5_000 },
  async (t) => {
    const { port, seen } = await server(t, (res) => {
      res.writeHead(200)
      res.write('x'.repeat(100 * 1024))
    })
    const connections = receiverConnections(1, true)
    t.teardown(() => connections.destroy())
    const outcome = await postJson(`http://127.0.0.1:${port}/`, {}, '{}', { allowPrivate: true, connections })
    t.same(outcome, { status_code: 200, error: null })
    t.equal(seen.requests, 1)
  },
)
