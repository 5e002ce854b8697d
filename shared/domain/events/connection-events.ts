import { z } from 'zod'

/** The store platforms shiplog connects to. */
export const connectionPlatforms = ['shopify', 'woocommerce'] as const
export type ConnectionPlatform = (typeof connectionPlatforms)[number]
/** `unauthorized`: the store refused the credentials; nothing is called until they change. */
export const connectionStatuses = ['active', 'unauthorized'] as const

const at = z.number().int()
/** Secrets are stored sealed (shared/infra/secrets.ts), like webhook signing secrets. */
const credentials = z.record(z.string(), z.string())

/**
 * Events of a store connection's stream (`connection-<account>_<id>`), and
 * of each delivery a store's webhook made to it
 * (`storewebhook-<account>_<connection>_<delivery>`: one stream per delivery,
 * so one delivered twice is recorded once).
 */
export const connectionEvents = {
  ConnectionCreated: z.object({
    connection_id: z.number().int(),
    platform: z.enum(connectionPlatforms),
    /** The store's address: `https://<shop_domain>` for Shopify, the store URL for WooCommerce. */
    shop: z.string(),
    credentials,
    webhook_secret: z.string(),
    complete_when_delivered: z.boolean(),
    at,
  }),
  ConnectionUpdated: z.object({
    changes: z
      .object({
        credentials,
        webhook_secret: z.string(),
        complete_when_delivered: z.boolean(),
        status: z.enum(connectionStatuses),
      })
      .partial(),
    at,
  }),
  ConnectionDeleted: z.object({ at }),
  /** A store's webhook, verified and recorded as it came, before anything is done with it. */
  StoreWebhookReceived: z.object({
    connection_id: z.number().int(),
    delivery_id: z.string(),
    topic: z.string(),
    body: z.string(),
    at,
  }),
  /**
   * A tracker's new status, to be written back to the store its order came
   * from (`storeupdate-<account>_<update id>`): recorded before any call, so
   * a sweep finds what is still to send whatever Redis lost.
   */
  StoreUpdatePlanned: z.object({
    update_id: z.number().int(),
    connection_id: z.number().int(),
    /** The order's stream, and the tracker whose status moved. */
    order_stream: z.string(),
    tracker_id: z.number().int(),
    status: z.string(),
    happened_at: z.number().int(),
    at,
  }),
  /** The store took the update (or already had it: nothing is written twice). */
  StoreUpdateSent: z.object({ at }),
  /** The store refused it for good (its credentials, the order gone): never sent. */
  StoreUpdateFailed: z.object({ error: z.string(), at }),
} as const
