import { randomUUID } from 'node:crypto'
import { accountsProjection } from '../../projectors/all-projections.ts'
import { catchUp } from '../../projectors/runner.ts'
import {
  type AccountCommand,
  type AccountEvent,
  accountStream,
  decideAccount,
  evolveAccountState,
} from '../../shared/domain/accounts/account.ts'
import { newKeyPair } from '../../shared/infra/accounts/keys.ts'
import { type EventMetadata, expectedAfter, type Position } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { toNewEvents } from '../execute.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'

type AccountRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids'>

/**
 * Decides an account command on the account's stream and appends what it
 * decided; the accounts read model is brought up to date before returning, so
 * a change of keys holds at once for every process reading the same stores.
 * The operator's CLI is the origin unless the caller says otherwise.
 */
export async function changeAccount(
  rt: AccountRuntime,
  accountId: number,
  command: (at: number) => AccountCommand,
  origin: Pick<EventMetadata, 'source' | 'correlationId' | 'keyId'> = {
    source: 'cli',
    correlationId: `cli_${randomUUID()}`,
  },
): Promise<{ events: AccountEvent[]; position: Position }> {
  const stream = accountStream(accountId)
  const history = await rt.eventStore.readStream(stream)
  const state = asDomainEvents<AccountEvent>(history).reduce(evolveAccountState, undefined as never)
  const now = rt.clock.now()
  const events = decideAccount(command(toUnixSeconds(now)), state)
  let position = history.at(-1)?.position ?? 0n
  if (events.length > 0) {
    const metadata: EventMetadata = { accountId, ...origin, recordedAt: now.getTime() }
    const appended = await rt.eventStore.append([
      { stream, expected: expectedAfter(history.length - 1), events: toNewEvents(events, metadata) },
    ])
    position = appended.position
    await catchUp(rt, accountsProjection)
  }
  return { events, position }
}

/** Creates an account and returns its keys, shown this once. */
export async function createAccount(rt: AccountRuntime, name: string, language_code = 'en') {
  const id = rt.ids.next()
  const { keys, recorded } = newKeyPair()
  await changeAccount(rt, id, (at) => ({
    type: 'CreateAccount',
    data: { account_id: id, name, language_code, ...recorded, at },
  }))
  return { id, name, language_code, private_key: keys.private, public_key: keys.public }
}

/** Replaces both keys of an account and returns the new ones, shown this once. */
export async function rotateKeys(
  rt: AccountRuntime,
  id: number,
  origin?: Pick<EventMetadata, 'source' | 'correlationId'>,
) {
  const { keys, recorded } = newKeyPair()
  await changeAccount(rt, id, (at) => ({ type: 'RotateKeys', data: { ...recorded, at } }), origin)
  return { id, private_key: keys.private, public_key: keys.public }
}

export const deleteAccount = (rt: AccountRuntime, id: number) =>
  changeAccount(rt, id, (at) => ({ type: 'DeleteAccount', data: { at } }))

/** Every account, from the log (the read model answers per account): never a key. */
export async function listAccounts(rt: Pick<Runtime, 'eventStore'>) {
  const accounts = new Map<
    number,
    { id: number; name: string; language_code: string; created_at: string; deleted: boolean }
  >()
  const types = ['AccountCreated', 'AccountUpdated', 'AccountDeleted']
  for (let after: bigint | undefined; ; ) {
    const page = await rt.eventStore.readAll({ after, limit: 1000, types })
    if (page.length === 0) return [...accounts.values()]
    after = page.at(-1)!.position
    for (const recorded of page) {
      const event = asDomainEvents<AccountEvent>([recorded])[0]!
      if (event.type === 'AccountCreated') {
        const { account_id: id, name, language_code, at } = event.data
        accounts.set(id, { id, name, language_code, created_at: new Date(at * 1000).toISOString(), deleted: false })
        continue
      }
      const account = accounts.get(recorded.metadata.accountId)
      if (account && event.type === 'AccountUpdated') Object.assign(account, event.data.changes)
      if (account && event.type === 'AccountDeleted') account.deleted = true
    }
  }
}
