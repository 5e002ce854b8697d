import { ShiplogError } from '../errors.ts'
import type { TrackingPageSettings } from '../tracking-page/settings.ts'
import type { ChannelSettings } from '../vocabulary/channels.ts'
import type { DelayRules, QuietHours } from '../events/account-events.ts'
import { changed } from '../same-value.ts'
import { assertNever, type DomainEvent, type EventData } from '../events/index.ts'
import type { accountEvents } from '../events/account-events.ts'

export type AccountEvent = Extract<DomainEvent, { type: keyof typeof accountEvents }>

/** What the write side knows of an account: whether it exists, and its settings. */
export interface AccountState {
  id: number
  language_code: string
  disabled_notification_types: string[]
  tracking_page?: TrackingPageSettings
  notification_channels?: ChannelSettings
  sms_quiet_hours?: QuietHours | null
  delay_rules?: DelayRules
  deleted: boolean
}

export const accountStream = (accountId: number) => `account-${accountId}`

/** Keys arrive already hashed: the domain never sees a key, nor makes one. */
export type AccountCommand =
  | { type: 'CreateAccount'; data: EventData<'AccountCreated'> }
  | { type: 'UpdateAccount'; data: EventData<'AccountUpdated'> }
  | { type: 'RotateKeys'; data: EventData<'AccountKeysRotated'> }
  | { type: 'DeleteAccount'; data: EventData<'AccountDeleted'> }

/** An account is created once; a deleted one takes no command; a change that changes nothing records nothing. */
export function decideAccount(command: AccountCommand, state: AccountState | undefined): AccountEvent[] {
  if (command.type === 'CreateAccount') {
    if (state) throw new ShiplogError('SHIPLOG_ERR_CONFLICT', `Account ${state.id} already exists`)
    return [{ type: 'AccountCreated', data: command.data }]
  }
  if (!state || state.deleted) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Account not found')
  switch (command.type) {
    case 'UpdateAccount': {
      const changes = changed(state, command.data.changes)
      return changes ? [{ type: 'AccountUpdated', data: { changes, at: command.data.at } }] : []
    }
    case 'RotateKeys':
      return [{ type: 'AccountKeysRotated', data: command.data }]
    case 'DeleteAccount':
      return [{ type: 'AccountDeleted', data: command.data }]
    default:
      return assertNever(command)
  }
}

export function evolveAccountState(state: AccountState | undefined, event: AccountEvent): AccountState {
  if (event.type === 'AccountCreated') {
    return {
      id: event.data.account_id,
      language_code: event.data.language_code,
      disabled_notification_types: [],
      deleted: false,
    }
  }
  if (!state) throw new Error(`${event.type} before AccountCreated`)
  switch (event.type) {
    case 'AccountUpdated':
      return { ...state, ...event.data.changes }
    case 'AccountKeysRotated':
      return state
    case 'AccountDeleted':
      return { ...state, deleted: true }
    default:
      return assertNever(event)
  }
}
