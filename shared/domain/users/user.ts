import { ShiplogError } from '../errors.ts'
import { assertNever, type DomainEvent, type EventData } from '../events/index.ts'
import type { ConsoleRole, userEvents } from '../events/user-events.ts'

export type UserEvent = Extract<DomainEvent, { type: keyof typeof userEvents }>

/** A console user as deciding and signing in need it. */
export interface UserState {
  user_id: number
  account_id: number
  email: string
  role: ConsoleRole
  password_hash: string
  /** Sessions begun before this (Unix milliseconds) have ended: a sign-out, a new password. */
  sessions_after: number
  deleted: boolean
  created_at: number
}

/** E-mail addresses compare without case: one stream per address, in lower case. */
export const userStream = (email: string) => `user-${encodeURIComponent(email.trim().toLowerCase())}`

export type UserCommand =
  | { type: 'CreateUser'; data: EventData<'UserCreated'> }
  | { type: 'ResetPassword'; data: EventData<'UserPasswordReset'> }
  | { type: 'SignOut'; data: EventData<'UserSignedOut'> }
  | { type: 'DeleteUser'; data: EventData<'UserDeleted'> }

/** An address is one user's while that user exists; a deleted user's address may be given to a new one. */
export function decideUser(command: UserCommand, state: UserState | undefined): UserEvent[] {
  if (command.type === 'CreateUser') {
    if (state && !state.deleted)
      throw new ShiplogError('SHIPLOG_ERR_CONFLICT', `A console user with the e-mail ${state.email} already exists`)
    return [{ type: 'UserCreated', data: command.data }]
  }
  if (!state || state.deleted) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'No console user has this e-mail')
  switch (command.type) {
    case 'ResetPassword':
      return [{ type: 'UserPasswordReset', data: command.data }]
    case 'SignOut':
      return [{ type: 'UserSignedOut', data: command.data }]
    case 'DeleteUser':
      return [{ type: 'UserDeleted', data: command.data }]
    default:
      return assertNever(command)
  }
}

export function evolveUserState(state: UserState | undefined, event: UserEvent): UserState {
  if (event.type === 'UserCreated') {
    const { user_id, account_id, email, role, password_hash, at } = event.data
    return {
      user_id,
      account_id,
      email,
      role,
      password_hash,
      sessions_after: at * 1000,
      deleted: false,
      created_at: at,
    }
  }
  if (!state) throw new Error(`${event.type} before UserCreated`)
  switch (event.type) {
    case 'UserPasswordReset':
      return { ...state, password_hash: event.data.password_hash, sessions_after: event.data.at * 1000 }
    case 'UserSignedOut':
      return { ...state, sessions_after: event.data.before }
    case 'UserDeleted':
      return { ...state, deleted: true }
    default:
      return assertNever(event)
  }
}
