import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { notFound } from '../../shared/domain/errors.ts'
import { foldOrderState, orderStream } from '../../shared/domain/orders/state.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import { decideTrackingLinkRotation } from '../../shared/domain/orders/tracking-link-rotation.ts'
import { toUnixSeconds } from '../../shared/domain/time.ts'
import { expectedAfter } from '../../shared/infra/event-store/port.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { trackingLinkOf, type TrackingTokens } from '../../shared/infra/tracking-tokens.ts'
import { type CommandPlan, type CommandRequest, metadataFor, toNewEvents } from '../execute.ts'

/**
 * Plans a rotation of an order's tracking link: the order is found by id in
 * the orders read model, decided on from its stream, and the answer is the
 * new link (under `baseUrl`).
 */
export async function planTrackingLinkRotation(
  rt: Pick<Runtime, 'eventStore' | 'readStore' | 'clock' | 'ids'>,
  command: CommandRequest,
  orderId: number,
  link: { tokens: TrackingTokens; baseUrl: string },
): Promise<CommandPlan> {
  const accountId = command.account.id
  const found = await rt.readStore.get<OrderDoc>(collections.orders.name, accountId, orderId)
  if (!found) throw notFound('Order not found')
  const stream = orderStream(accountId, found.doc.order_number)
  const recorded = await rt.eventStore.readStream(stream)
  const now = rt.clock.now()
  const linkId = rt.ids.next()
  const events = decideTrackingLinkRotation(
    { link_id: linkId, at: toUnixSeconds(now) },
    foldOrderState(asDomainEvents<OrderEvent>(recorded)),
  )
  return {
    appends: [
      {
        stream,
        expected: expectedAfter(recorded.length - 1),
        events: toNewEvents(events, metadataFor(command, now.getTime())),
      },
    ],
    status: 200,
    body: trackingLinkOf(link.tokens, link.baseUrl, { accountId, orderId, linkId }),
    readPosition: recorded.at(-1)?.position ?? 0n,
  }
}
