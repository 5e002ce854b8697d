import t from 'tap'
import { EndpointTurns, HELD_PER_ENDPOINT } from '../../reactions/webhooks/endpoint-turns.ts'

/* How a sender process takes one endpoint's batches: a slow one's a bounded number at once, and all in log order. */

/** Given an endpoint whose batch took `ms` to send, holding `held` batches taken at `now`. */
function endpointHolding(held: number, ms: number, now = 0) {
  const turns = new EndpointTurns()
  turns.take(1n, now - ms)
  turns.sending(now - ms)
  turns.done(now)
  for (let i = 0; i < held; i++) turns.take(BigInt(100 + i * 100), now)
  return turns
}

t.test('a fast endpoint’s batches are all taken as they come', async (t) => {
  const turns = endpointHolding(HELD_PER_ENDPOINT, 50)
  t.ok(turns.take(100_000n, 0), 'more than a slow endpoint may hold')
})

t.test('a slow endpoint holds a bounded number of batches; the next is put back until one is done', async (t) => {
  const turns = endpointHolding(HELD_PER_ENDPOINT, 5_000)
  t.notOk(turns.take(100_000n, 0), 'put back')
  turns.sending(0)
  turns.done(5_000)
  t.ok(turns.take(100_000n, 5_000), 'taken once a batch is done')
})

t.test('an endpoint is slow as soon as the batch it sends has taken long', async (t) => {
  const turns = endpointHolding(HELD_PER_ENDPOINT, 50)
  turns.sending(0)
  t.ok(turns.take(100_000n, 1_000), 'still fast after 1 s')
  t.notOk(turns.take(100_100n, 2_500), 'slow after 2.5 s')
})

t.test('a batch waits while an earlier one put back is to be taken again, so batches keep log order', async (t) => {
  const turns = endpointHolding(HELD_PER_ENDPOINT, 5_000)
  const [earlier, later] = [100_000n, 100_100n]
  t.notOk(turns.take(earlier, 0), 'put back: the endpoint holds its share')
  turns.sending(0)
  turns.done(10)
  t.notOk(turns.take(later, 20), 'a later batch is put back behind it, though there is room')
  t.ok(turns.take(earlier, 30), 'the earlier one is taken when it comes back')
  turns.done(50)
  t.ok(turns.take(later, 60), 'then the later one, once there is room')
})

t.test('a batch put back and never taken again stops holding the later ones after a minute', async (t) => {
  const turns = endpointHolding(HELD_PER_ENDPOINT, 5_000)
  t.notOk(turns.take(100_000n, 0))
  for (let i = 0; i < HELD_PER_ENDPOINT; i++) turns.done(10)
  t.notOk(turns.take(100_100n, 30_000), 'still behind the lost batch after 30 s')
  t.ok(turns.take(100_100n, 61_000), 'taken once the lost batch is forgotten')
})

t.test('a batch put back waits about as long as the batches held take, within bounds', async (t) => {
  t.equal(new EndpointTurns().putBackFor(0), 100, 'at least 100 ms before any batch is timed')
  t.equal(endpointHolding(3, 40).putBackFor(0), 120, 'three held at 40 ms each')
  t.equal(endpointHolding(HELD_PER_ENDPOINT, 5_000).putBackFor(0), 30_000, 'at most 30 s')
  const turns = endpointHolding(2, 40)
  t.notOk(turns.idle)
  turns.done(10)
  turns.done(10)
  t.ok(turns.idle, 'idle once every batch is done and none is put back')
})

t.test('single messages count in the share; until one has shown the endpoint fast, they are held to it', async (t) => {
  const turns = new EndpointTurns()
  for (let i = 0; i < HELD_PER_ENDPOINT; i++) t.ok(turns.takeOne(0))
  t.notOk(turns.takeOne(0), 'put back: no attempt has ended yet')
  t.equal(turns.putBackOneFor(), 100, 'for 100 ms at least')
  turns.doneOne(20)
  t.ok(turns.takeOne(10))
  t.ok(turns.takeOne(10), 'past the share once attempts end fast')
})

t.test('a slow endpoint’s single messages and batches share one bound', async (t) => {
  const turns = endpointHolding(HELD_PER_ENDPOINT - 1, 5_000)
  t.ok(turns.takeOne(0), 'the last place')
  t.notOk(turns.takeOne(0), 'a single message is put back')
  t.notOk(turns.take(100_000n, 0), 'and so is a batch')
  turns.doneOne(10_000)
  t.equal(turns.putBackOneFor(), 10_000, 'for about as long as an attempt takes')
})
