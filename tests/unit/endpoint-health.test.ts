import t from 'tap'
import { endpointHealth, type LoggedMessage } from '../../console/endpoint-health.ts'

/* A webhook endpoint's health on the console's list: what it took in a day, since when it fails. */

const NOW = 10 * 86_400
const hoursAgo = (h: number, status: LoggedMessage['status'], retries = 0): LoggedMessage => ({
  created_at: NOW - h * 3600,
  status,
  retries,
})

t.test('the last 24 hours: messages tried, and the share taken; older ones and untried ones left out', async (t) => {
  // Given a day with three taken, one given up on, one waiting its first try, and one older than a day
  const log = [
    hoursAgo(1, 'pending'),
    hoursAgo(2, 'succeeded'),
    hoursAgo(3, 'failed', 2),
    hoursAgo(5, 'succeeded'),
    hoursAgo(20, 'succeeded'),
    hoursAgo(30, 'failed', 2),
  ]
  // When its health is read, then 3 of the 4 tried in the day were taken, and it is not failing now
  t.same(endpointHealth(log, NOW), { lastDay: { taken: 3, tried: 4 }, failingSince: null })
})

t.test('failing since the oldest message of its current run of failures, retried ones included', async (t) => {
  // Given the newest tried messages failing (one being retried, one given up on) after one taken
  const log = [hoursAgo(0.5, 'pending'), hoursAgo(1, 'pending', 1), hoursAgo(4, 'failed', 2), hoursAgo(6, 'succeeded')]
  // Then it has failed since the message of 4 hours ago
  t.equal(endpointHealth(log, NOW).failingSince, NOW - 4 * 3600)
  t.same(endpointHealth(log, NOW).lastDay, { taken: 1, tried: 3 })
})

t.test('no message: nothing to say', async (t) => {
  t.same(endpointHealth([], NOW), { lastDay: null, failingSince: null })
})
