import { notFound } from '../errors.ts'
import type { OrderState } from './state.ts'
import type { OrderEvent } from '../events/index.ts'

/** An order's tracking page before any rotation answers to link 0. */
export const FIRST_TRACKING_LINK = 0

/**
 * Rotating an order's tracking link: the new link's id arrives in the
 * command, and the order must exist. Every rotation is recorded, even a
 * second one in the same second, since each revokes the link before it.
 */
export function decideTrackingLinkRotation(
  command: { link_id: number; at: number },
  state: OrderState | undefined,
): OrderEvent[] {
  if (!state) throw notFound('Order not found')
  return [{ type: 'TrackingLinkRotated', data: command }]
}
