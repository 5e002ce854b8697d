import { ShiplogError } from '../errors.ts'
import { assertNever, type DomainEvent, type EventData } from '../events/index.ts'
import type { accountEvents } from '../events/account-events.ts'

export type AccountEvent = Extract<DomainEvent, { type: keyof typeof accountEvents }>

/** What the write side knows of an account: enough to refuse a second creation. */
export interface AccountState {
  id: number
  language_code: string
}

export const accountStream = (accountId: number) => `account-${accountId}`

/** Keys arrive already hashed: the domain never sees a key, nor makes one. */
export interface CreateAccount {
  type: 'CreateAccount'
  data: EventData<'AccountCreated'>
}

export type AccountCommand = CreateAccount

export function decideAccount(command: AccountCommand, state: AccountState | undefined): AccountEvent[] {
  switch (command.type) {
    case 'CreateAccount':
      if (state) throw new ShiplogError('SHIPLOG_ERR_CONFLICT', `Account ${state.id} already exists`)
      return [{ type: 'AccountCreated', data: command.data }]
    default:
      return assertNever(command.type)
  }
}

export function evolveAccountState(_state: AccountState | undefined, event: AccountEvent): AccountState {
  switch (event.type) {
    case 'AccountCreated':
      return { id: event.data.account_id, language_code: event.data.language_code }
    default:
      return assertNever(event.type)
  }
}
