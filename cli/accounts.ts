import { randomUUID } from 'node:crypto'
import { toNewEvents } from '../command-api/execute.ts'
import { accountsProjection } from '../projectors/projections.ts'
import { catchUp } from '../projectors/runner.ts'
import { accountStream, decideAccount } from '../shared/domain/accounts/account.ts'
import { newKeyPair } from '../shared/infra/accounts/keys.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

/**
 * Creates an account and returns its keys, shown this once. The accounts read
 * model is brought up to date before returning, so the keys work at once,
 * whether or not a server is running on the same stores.
 */
export async function createAccountCommand(rt: Runtime, name: string) {
  const id = rt.ids.next()
  const now = rt.clock.now()
  const { keys, recorded } = newKeyPair()
  const data = { account_id: id, name, language_code: 'en', ...recorded, at: toUnixSeconds(now) }
  const events = decideAccount({ type: 'CreateAccount', data }, undefined)
  const metadata = { accountId: id, correlationId: `cli_${randomUUID()}`, recordedAt: now.getTime() }
  await rt.eventStore.append([
    { stream: accountStream(id), expected: 'no_stream', events: toNewEvents(events, metadata) },
  ])
  await catchUp(rt, accountsProjection)
  return { id, name, private_key: keys.private, public_key: keys.public }
}
