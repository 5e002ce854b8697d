import type { OrderDoc } from '../../domain/orders/document.ts'
import { foldOrder } from '../../domain/orders/evolve-document.ts'
import type { OrderEvent } from '../../domain/events/index.ts'
import type { CollectionSpec } from './port.ts'

/**
 * The name of an order's full view carries the version of what it holds: a
 * change to the rendering (nested events in descending id order, version 2; trackers' delay, version 3)
 * gets a new name, so a view stored by older code is never served; orders
 * without one are rendered from their documents until it is filled.
 */
export const ORDER_FULL_VIEW = 'full_3'

/** The read models' collections and the fields each is queried by. */
export const collections = {
  /** An API key finds its account, whichever it is: each request's one lookup, by index. */
  accounts: {
    name: 'accounts',
    fields: { private_key_hash: 'text', public_key_hash: 'text' },
    lookupFields: ['private_key_hash', 'public_key_hash'],
  },
  /** Store connections (Shopify, WooCommerce), their secrets sealed. */
  connections: { name: 'connections', fields: {} },
  /** Status changes to write back to the stores, by `state` (`pending` ones are queued again by a sweep). */
  store_updates: { name: 'store_updates', fields: { state: 'text' }, sweptValues: { state: 'pending' } },
  /** Console users; `email` (lower case, null once deleted) finds the one signing in, whatever their account. */
  users: { name: 'users', fields: { email: 'text' }, lookupFields: ['email'] },
  orders: {
    name: 'orders',
    /** `delay_status`: its most behind parcel's (late, then stalled, then at risk). */
    fields: {
      email: 'text',
      order_number: 'text',
      created_at: 'integer',
      ordered_at: 'integer',
      delay_status: 'text',
    },
    /** A customer's tracking page lookup names an order number, not the shop. */
    lookupFields: ['order_number'],
    /** `full`: the order rendered with every expansion, the answer dashboards and syncs ask for most. */
    views: [ORDER_FULL_VIEW],
    /**
     * An order changes with every carrier event, and rendering its full view
     * costs as much as the rest of its write: the view is rendered once the
     * projector is idle, not at every change, and an order read before then is
     * rendered by its reader.
     */
    viewsWhenIdle: true,
    compressed: true,
    /**
     * A carrier scan changes an order's trackers, none of its indexed
     * fields: its events are kept beside the document, unread, and folded
     * by its readers, so a scan does not cost a read and a rewrite of the
     * whole order.
     */
    pending: { fold: (doc, events) => foldOrder(events as unknown as OrderEvent[], doc as OrderDoc) },
  },
  carrier_services: { name: 'carrier_services', fields: { carrier_code: 'text' } },
  jobs: { name: 'jobs', fields: { status: 'text' }, lookupFields: ['status'] },
  job_results: {
    name: 'job_results',
    fields: { job_id: 'integer' },
    /** `results`: the chunk's results as JSON array items, so a job of 100,000 rows is answered by joining strings. */
    views: ['results'],
    /**
     * Compressed: answering a large job reads a fifth of the pages through the
     * query side's page cache, and decodes each chunk straight into the answer.
     */
    compressed: true,
  },
  /** `place`: country and postcode, by which a carrier's pickup point address finds the imported one. */
  pickup_points: { name: 'pickup_points', fields: { merchant_id: 'text', place: 'text' } },
  trackers: {
    name: 'trackers',
    fields: {
      tracking_number: 'text',
      delivery_status_code: 'text',
      next_poll_at: 'integer',
      delay_status: 'text',
      delay_check_at: 'integer',
      carrier_code: 'text',
      /** 1 for a tracker whose delay nobody has handled yet. */
      delay_open: 'integer',
    },
    /** The trackers whose carrier shiplog polls, and those whose delay is to be looked at, by when they are due. */
    dueFields: ['next_poll_at', 'delay_check_at'],
  },
  /**
   * Each notification: where it is (its order's document, `order_key`), for
   * the routes that take a notification id, and its e-mail payload by status,
   * which the e-mail sender's sweep queues again.
   */
  notifications: { name: 'notifications', fields: { email_status: 'text' }, sweptValues: { email_status: 'built' } },
  /** Each notification's SMS payload, by its status and, once sent, the phone it went to (for an inbound STOP). */
  sms_payloads: {
    name: 'sms_payloads',
    fields: { status: 'text', to: 'text' },
    lookupFields: ['to'],
    sweptValues: { status: 'built' },
  },
  /** Phone numbers that answered STOP, per account. */
  sms_opt_outs: { name: 'sms_opt_outs', fields: {} },
  /**
   * What shiplog learns from delivered parcels: each order's delivery facts
   * (`kind` order), and per carrier service, lane and week the sums of the
   * parcels that ended in it (`kind` bucket, and `prefixes` for the same per
   * postcode prefix; `week` its Monday, YYYYMMDD).
   */
  delivery_stats: { name: 'delivery_stats', fields: { kind: 'text', week: 'integer', changed: 'integer' } },
  webhook_endpoints: { name: 'webhook_endpoints', fields: { status: 'text', deleted: 'integer' } },
  /**
   * The account's public events (GET /v2/events): one per event of the log a
   * webhook message tells of, its id the position. Not `events`: the
   * PostgreSQL event store's table has that name in the same schema.
   */
  public_events: { name: 'public_events', fields: { type: 'text', created_at: 'integer' } },
  /**
   * Each webhook message to an endpoint; `subject`: the stream of the event it
   * tells of (an order's), for the console's page of that order. The sweep
   * queues again the messages still `pending`.
   */
  webhook_deliveries: {
    name: 'webhook_deliveries',
    fields: { endpoint_id: 'integer', status: 'text', subject: 'text' },
    sweptValues: { status: 'pending' },
  },
} as const satisfies Record<string, CollectionSpec>

export const allCollections: CollectionSpec[] = Object.values(collections)
