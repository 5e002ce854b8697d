import { randomUUID } from 'node:crypto'
import { usersProjection } from '../../projectors/all-projections.ts'
import { catchUp } from '../../projectors/runner.ts'
import { ShiplogError } from '../../shared/domain/errors.ts'
import type { ConsoleRole } from '../../shared/domain/events/user-events.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import {
  decideUser,
  evolveUserState,
  type UserCommand,
  type UserEvent,
  type UserState,
  userStream,
} from '../../shared/domain/users/user.ts'
import type { EventMetadata } from '../../shared/infra/event-store/port.ts'
import { hashPassword, passwordProblem } from '../../shared/infra/passwords.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { decideOnStream } from '../execute.ts'

type UserRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids'>
type Origin = Pick<EventMetadata, 'source' | 'correlationId'>

/**
 * Decides a command on the user's stream and appends it; the users read
 * model is brought up to date before returning, so a sign-out or a new
 * password holds at once for every process reading the same stores.
 */
export async function changeUser(
  rt: UserRuntime,
  email: string,
  command: (at: number) => UserCommand,
  origin: Origin = { source: 'cli', correlationId: `cli_${randomUUID()}` },
) {
  let accountId = 0
  await decideOnStream<UserEvent>(
    rt,
    userStream(email),
    (history) => {
      const state = history.reduce(evolveUserState, undefined as UserState | undefined)
      const decided = command(toUnixSeconds(rt.clock.now()))
      accountId = decided.type === 'CreateUser' ? decided.data.account_id : (state?.account_id ?? 0)
      return decideUser(decided, state)
    },
    () => ({ accountId, ...origin, recordedAt: rt.clock.nowMs() }),
  )
  await catchUp(rt, usersProjection)
}

const refusedPassword = (password: string) => {
  const problem = passwordProblem(password)
  if (problem) throw new ShiplogError('SHIPLOG_ERR_VALIDATION', `The password ${problem}`)
}

/** Creates a console user of an account that exists. */
export async function createUser(
  rt: UserRuntime,
  user: { accountId: number; email: string; role: ConsoleRole; password: string },
  origin?: Origin,
) {
  refusedPassword(user.password)
  const account = await rt.readStore.get(collections.accounts.name, user.accountId, user.accountId)
  if (!account || (account.doc as { deleted?: boolean }).deleted)
    throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', `Account ${user.accountId} not found`)
  const password_hash = await hashPassword(user.password)
  const user_id = rt.ids.next()
  const email = user.email.trim().toLowerCase()
  await changeUser(
    rt,
    email,
    (at) => ({
      type: 'CreateUser',
      data: { user_id, account_id: user.accountId, email, role: user.role, password_hash, at },
    }),
    origin,
  )
  return { id: user_id, account_id: user.accountId, email, role: user.role }
}

export async function resetPassword(rt: UserRuntime, email: string, password: string) {
  refusedPassword(password)
  const password_hash = await hashPassword(password)
  await changeUser(rt, email, (at) => ({ type: 'ResetPassword', data: { password_hash, at } }))
}

export const deleteUser = (rt: UserRuntime, email: string, origin?: Origin) =>
  changeUser(rt, email, (at) => ({ type: 'DeleteUser', data: { at } }), origin)

/** Ends every session of the user begun before now. */
export const signOutUser = (rt: UserRuntime, email: string, origin: Origin) =>
  changeUser(rt, email, (at) => ({ type: 'SignOut', data: { before: rt.clock.nowMs(), at } }), origin)
