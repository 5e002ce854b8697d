import { ShiplogError } from '../errors.ts'
import { assertNever, type DomainEvent, type EventData } from '../events/index.ts'
import type { ConnectionPlatform, connectionEvents } from '../events/connection-events.ts'
import { changed } from '../same-value.ts'

export type ConnectionEvent = Extract<
  DomainEvent,
  { type: Extract<keyof typeof connectionEvents, `Connection${string}`> }
>

/** A store connection, as deciding and the read model need it; its secrets stay sealed. */
export interface ConnectionState {
  id: number
  platform: ConnectionPlatform
  shop: string
  credentials: Record<string, string>
  webhook_secret: string
  complete_when_delivered: boolean
  status: 'active' | 'unauthorized'
  deleted: boolean
  created_at: number
  updated_at: number
}

export const connectionStream = (accountId: number, connectionId: number) => `connection-${accountId}_${connectionId}`

/** One stream per delivery of a store's webhook: a delivery seen twice is recorded once. */
export const storeWebhookStream = (accountId: number, connectionId: number, deliveryId: string) =>
  `storewebhook-${accountId}_${connectionId}_${encodeURIComponent(deliveryId)}`

export type ConnectionCommand =
  | { type: 'CreateConnection'; data: EventData<'ConnectionCreated'> }
  | { type: 'UpdateConnection'; data: EventData<'ConnectionUpdated'> }
  | { type: 'DeleteConnection'; data: EventData<'ConnectionDeleted'> }

/** A connection is created once; a deleted one takes nothing more; a change that changes nothing records nothing. */
export function decideConnection(command: ConnectionCommand, state: ConnectionState | undefined): ConnectionEvent[] {
  if (command.type === 'CreateConnection') {
    if (state) throw new ShiplogError('SHIPLOG_ERR_CONFLICT', `Connection ${state.id} already exists`)
    return [{ type: 'ConnectionCreated', data: command.data }]
  }
  if (!state || state.deleted) throw new ShiplogError('SHIPLOG_ERR_NOT_FOUND', 'Connection not found')
  switch (command.type) {
    case 'UpdateConnection': {
      const changes = changed(state, command.data.changes)
      return changes ? [{ type: 'ConnectionUpdated', data: { changes, at: command.data.at } }] : []
    }
    case 'DeleteConnection':
      return [{ type: 'ConnectionDeleted', data: command.data }]
    default:
      return assertNever(command)
  }
}

export function evolveConnection(state: ConnectionState | undefined, event: ConnectionEvent): ConnectionState {
  if (event.type === 'ConnectionCreated') {
    const { connection_id, platform, shop, credentials, webhook_secret, complete_when_delivered, at } = event.data
    return {
      id: connection_id,
      platform,
      shop,
      credentials,
      webhook_secret,
      complete_when_delivered,
      status: 'active',
      deleted: false,
      created_at: at,
      updated_at: at,
    }
  }
  if (!state) throw new Error(`${event.type} before ConnectionCreated`)
  switch (event.type) {
    case 'ConnectionUpdated':
      return { ...state, ...event.data.changes, updated_at: event.data.at }
    case 'ConnectionDeleted':
      return { ...state, deleted: true, updated_at: event.data.at }
    default:
      return assertNever(event)
  }
}
