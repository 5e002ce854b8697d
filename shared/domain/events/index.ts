import type { z } from 'zod'
import { accountEvents } from './account-events.ts'
import { carrierServiceEvents } from './carrier-service-events.ts'
import { connectionEvents } from './connection-events.ts'
import { jobEvents } from './job-events.ts'
import { orderEvents } from './order-events.ts'
import { pickupPointEvents } from './pickup-point-events.ts'
import { requestEvents } from './request-events.ts'
import { smsRecipientEvents } from './sms-events.ts'
import { userEvents } from './user-events.ts'
import { webhookEndpointEvents, webhookMessageEvents } from './webhook-events.ts'

/** Every event shiplog writes: its type name and the zod schema of its data, the single source of truth. */
export const eventSchemas = {
  ...accountEvents,
  ...orderEvents,
  ...requestEvents,
  ...jobEvents,
  ...pickupPointEvents,
  ...carrierServiceEvents,
  ...webhookEndpointEvents,
  ...webhookMessageEvents,
  ...smsRecipientEvents,
  ...userEvents,
  ...connectionEvents,
} as const

export type EventType = keyof typeof eventSchemas
/** Every event type of the log. */
export const eventTypes = Object.keys(eventSchemas) as EventType[]
export type EventData<T extends EventType> = z.infer<(typeof eventSchemas)[T]>

/** A discriminated union over `type`, so a switch over it is checked for exhaustiveness. */
export type DomainEvent = { [T in EventType]: { type: T; data: EventData<T> } }[EventType]

/** An event of an order stream (`order-<accountId>_<key>`). */
export type OrderEvent = Extract<DomainEvent, { type: keyof typeof orderEvents }>

export const orderEventTypes = Object.keys(orderEvents) as (keyof typeof orderEvents)[]
export const accountEventTypes = Object.keys(accountEvents) as (keyof typeof accountEvents)[]
export const carrierServiceEventTypes = Object.keys(carrierServiceEvents) as (keyof typeof carrierServiceEvents)[]
export const jobEventTypes = Object.keys(jobEvents) as (keyof typeof jobEvents)[]
export const webhookEndpointEventTypes = Object.keys(webhookEndpointEvents) as (keyof typeof webhookEndpointEvents)[]
export const webhookMessageEventTypes = Object.keys(webhookMessageEvents) as (keyof typeof webhookMessageEvents)[]
export const smsRecipientEventTypes = Object.keys(smsRecipientEvents) as (keyof typeof smsRecipientEvents)[]
export const connectionEventTypes = Object.keys(connectionEvents) as (keyof typeof connectionEvents)[]
export const userEventTypes = Object.keys(userEvents) as (keyof typeof userEvents)[]
export const pickupPointEventTypes = Object.keys(pickupPointEvents) as (keyof typeof pickupPointEvents)[]

/** Checks an event against its schema before it is appended; a mismatch is a bug, never client input. */
export function assertValidEvent(event: DomainEvent): void {
  const result = eventSchemas[event.type].safeParse(event.data)
  if (!result.success) throw new Error(`invalid ${event.type} event: ${result.error.message}`)
}

export const assertNever = (x: never): never => {
  throw new Error(`unexpected value ${JSON.stringify(x)}`)
}
