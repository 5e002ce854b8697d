import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { CommandRequest } from '../commands/execute.ts'
import { ShiplogError } from '../shared/domain/errors.ts'
import type { UserState } from '../shared/domain/users/user.ts'
import type { AccountDoc } from '../shared/infra/accounts/account-doc.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import type { Frame } from './html.ts'
import type { PollQueues } from '../reactions/polls/poller.ts'
import type { DeliveryQueue } from '../reactions/webhooks/delivery-queue.ts'
import type { ConfiguredCarrierApi } from '../shared/infra/carriers/apis.ts'
import type { CarrierLedger } from '../shared/infra/carriers/ledger.ts'
import type { JobQueue } from '../shared/infra/jobs/queue.ts'

/** A signed-in user's request: who, their account, and the frame of the page. */
export interface ConsoleRequest {
  user: UserState
  account: AccountDoc
  frame: Frame
}

/** A console form's command, as the command core takes one: the signed-in user's account, the request's id. */
export const commandOf = (c: Pick<ConsoleRequest, 'account'>, request: Pick<FastifyRequest, 'id'>): CommandRequest => ({
  source: 'console',
  account: c.account,
  correlationId: request.id,
})

export type SignedIn = (request: FastifyRequest, reply: FastifyReply) => Promise<ConsoleRequest | undefined>
export type Query = Record<string, string | undefined>
type Build = (c: ConsoleRequest, request: FastifyRequest, reply: FastifyReply) => unknown

/** Who may use a route: any user of the account, or its owners only (keys, users, every change of a setting). */
export type Allowed = 'member' | 'owner'

export const ownersOnly = () =>
  new ShiplogError('SHIPLOG_ERR_FORBIDDEN', 'Only an owner of the account can do this: ask one of them.')

/**
 * The console's routes for signed-in users: each page gets the frame every
 * page has (navigation, open delays, the message of the change just made);
 * a member asking for an owner's route is refused with 403.
 */
export function consoleScope(scope: FastifyInstance, rt: Runtime, signedIn: SignedIn) {
  const options = { config: { auth: 'none' as const }, schema: { hide: true } }
  const handler =
    (current: Frame['current'], build: Build, allowed: Allowed) =>
    async (request: FastifyRequest, reply: FastifyReply) => {
      const c = await signedIn(request, reply)
      if (!c) return reply
      if (allowed === 'owner' && c.user.role !== 'owner') throw ownersOnly()
      c.frame.current = current
      c.frame.openDelays = await rt.readStore.count(collections.trackers.name, {
        accountId: c.account.id,
        where: [{ field: 'delay_open', op: 'eq', value: 1 }],
      })
      c.frame.flash = (request.query as Query).done
      return build(c, request, reply)
    }
  return {
    get: (path: string, current: Frame['current'], build: Build, allowed: Allowed = 'member') =>
      scope.get(path, options, handler(current, build, allowed)),
    /** A form's target: CSRF-checked, and owners only unless said otherwise. */
    post: (path: string, build: Build, allowed: Allowed = 'owner') =>
      scope.post(path, { ...options, preHandler: scope.csrfProtection }, handler(undefined, build, allowed)),
  }
}
export type ConsoleScope = ReturnType<typeof consoleScope>

/** What the console reads beside the stores, where this process has it: the queues, the carrier APIs' ledger. */
export interface ConsoleParts {
  jobs?: JobQueue
  /** The carrier polls' queues, where this process has them: Refresh from carrier queues on them. */
  polls?: PollQueues
  /** The webhook deliveries' queue: a message sent again from the delivery log goes on it. */
  deliveries?: DeliveryQueue
  carriers: { settings: readonly ConfiguredCarrierApi[]; ledger: CarrierLedger | undefined }
}
