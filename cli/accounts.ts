import { randomUUID } from 'node:crypto'
import { accountsProjection } from '../projectors/projections.ts'
import { catchUp } from '../projectors/runner.ts'
import { accountStream, createAccount } from '../projectors/accounts/account.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'
import { assertValidEvent } from '../shared/domain/events/index.ts'
import { eventId } from '../shared/infra/ids.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

/**
 * Creates an account and returns its keys, shown this once. The accounts read
 * model is brought up to date before returning, so the keys work at once,
 * whether or not a server is running on the same stores.
 */
export async function createAccountCommand(rt: Runtime, name: string) {
  const id = rt.ids.next()
  const now = rt.clock.now()
  const { event, keys } = createAccount({ id, name, now: toUnixSeconds(now) })
  assertValidEvent({ type: 'AccountCreated', data: event })
  await rt.eventStore.append([
    {
      stream: accountStream(id),
      expected: 'no_stream',
      events: [
        {
          id: eventId(now.getTime()),
          type: 'AccountCreated',
          data: event,
          metadata: { accountId: id, correlationId: `cli_${randomUUID()}`, recordedAt: now.getTime() },
        },
      ],
    },
  ])
  await catchUp(rt, accountsProjection)
  return { id, name, private_key: keys.private, public_key: keys.public }
}
