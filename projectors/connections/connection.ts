import type { z } from 'zod'
import type { ConnectionState } from '../../shared/domain/connections/connection.ts'
import type { connectionResource } from '../resources/schemas.ts'

/** Where a store's webhooks reach this connection: what the merchant gives the store. */
export const webhookPathOf = (accountId: number, c: Pick<ConnectionState, 'id' | 'platform'>) =>
  `/hooks/${c.platform}/${accountId}/${c.id}`

/** The connection resource: the store, its state and its webhook address, never a secret. */
export const renderConnection = (
  accountId: number,
  c: ConnectionState,
  baseUrl: string,
): z.output<typeof connectionResource> => ({
  object: 'connection',
  id: c.id,
  platform: c.platform,
  ...(c.platform === 'shopify' ? { shop_domain: new URL(c.shop).host } : { store_url: c.shop }),
  status: c.status,
  webhook_url: `${baseUrl}${webhookPathOf(accountId, c)}`,
  complete_when_delivered: c.complete_when_delivered,
  created_at: c.created_at,
  updated_at: c.updated_at,
})
