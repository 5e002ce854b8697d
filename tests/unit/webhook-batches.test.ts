import t from 'tap'
import { deliveryBatches } from '../../reactions/webhooks/reaction.ts'
import type { PlannedMessage } from '../../reactions/webhooks/plan.ts'

/* How the webhook reaction hands new messages to the senders: one endpoint a job, in log order, a thousand at most. */

const message = (endpointId: number, position: number, accountId = 1): PlannedMessage => ({
  accountId,
  endpointId,
  position: BigInt(position),
  type: 'tracker.created',
  body: '{}',
  subject: `order-${accountId}_A-${position}`,
})

t.test('messages are grouped by endpoint, in log order, a thousand a job', async (t) => {
  const planned = [...Array.from({ length: 2500 }, (_, i) => message(7, i + 1)), message(8, 3000), message(7, 3001, 2)]
  const jobs = deliveryBatches(planned)
  t.same(
    jobs.map((j) => [j.accountId, j.endpointId, j.streams.length]),
    [
      [1, 7, 1000],
      [1, 7, 1000],
      [1, 7, 500],
      [1, 8, 1],
      [2, 7, 1],
    ],
  )
  t.same(jobs[0]!.streams.slice(0, 2), ['webhookmessage-1_7_1', 'webhookmessage-1_7_2'], 'in log order')
  t.equal(jobs[2]!.streams.at(-1), 'webhookmessage-1_7_2500')
  t.same(deliveryBatches([]), [])
})
