import { callStore, type StoreCall, type StoreJson } from './calls.ts'

/*
 * Shopify's Admin GraphQL API, as shiplog writes a parcel's news back:
 * fulfillment events (`fulfillmentEventCreate`), read first so none is
 * written twice. Throttling is cost-based: a THROTTLED answer says how long
 * the bucket needs to refill.
 */

export const SHOPIFY_API_VERSION = '2025-01'

const EVENTS = `query FulfillmentEvents($id: ID!) {
  fulfillment(id: $id) { events(first: 250) { nodes { status happenedAt } } }
}`
const CREATE = `mutation CreateFulfillmentEvent($fulfillmentEvent: FulfillmentEventInput!) {
  fulfillmentEventCreate(fulfillmentEvent: $fulfillmentEvent) {
    fulfillmentEvent { id status }
    userErrors { field message }
  }
}`

/** The fields of an order shiplog reads, in the orders page and the single order alike. */
const ORDER_FIELDS = `legacyResourceId name email phone createdAt cancelledAt
  customer { firstName lastName email }
  shippingAddress { firstName lastName company address1 address2 city zip provinceCode countryCodeV2 phone }
  lineItems(first: 100) { nodes { id sku name title quantity } }
  fulfillments { legacyResourceId status trackingInfo { company number } }`
const ORDERS = `query Orders($cursor: String, $query: String) {
  orders(first: 50, after: $cursor, query: $query, sortKey: CREATED_AT) {
    pageInfo { hasNextPage endCursor }
    nodes { ${ORDER_FIELDS} }
  }
}`
const ORDER = `query Order($id: ID!) { order(id: $id) { ${ORDER_FIELDS} } }`

export const fulfillmentGid = (id: string) => `gid://shopify/Fulfillment/${id}`
const idOfGid = (gid: unknown) => (typeof gid === 'string' ? gid.slice(gid.lastIndexOf('/') + 1) : null)

/** An order as the GraphQL API gives it, in the shape its webhooks use (what the mapping reads). */
function webhookShapeOf(o: StoreJson) {
  const a = o.shippingAddress
  return {
    id: o.legacyResourceId,
    name: o.name,
    email: o.email,
    phone: o.phone,
    created_at: o.createdAt,
    cancelled_at: o.cancelledAt,
    customer: o.customer && {
      first_name: o.customer.firstName,
      last_name: o.customer.lastName,
      email: o.customer.email,
    },
    shipping_address: a && {
      first_name: a.firstName,
      last_name: a.lastName,
      company: a.company,
      address1: a.address1,
      address2: a.address2,
      city: a.city,
      zip: a.zip,
      province_code: a.provinceCode,
      country_code: a.countryCodeV2,
      phone: a.phone,
    },
    line_items: (o.lineItems?.nodes ?? []).map((li: StoreJson) => ({ ...li, id: idOfGid(li.id) })),
    fulfillments: (o.fulfillments ?? []).map((f: StoreJson) => ({
      id: f.legacyResourceId,
      status: String(f.status ?? '').toLowerCase(),
      tracking_company: f.trackingInfo?.[0]?.company ?? null,
      tracking_numbers: (f.trackingInfo ?? []).map((t: StoreJson) => t.number),
    })),
  }
}

export function shopifyStore(apiUrl: string, accessToken: string, allowPrivate: boolean) {
  async function graphql(query: string, variables: object): Promise<StoreCall<StoreJson>> {
    const call = await callStore(
      `${apiUrl}/admin/api/${SHOPIFY_API_VERSION}/graphql.json`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-shopify-access-token': accessToken },
        body: JSON.stringify({ query, variables }),
      },
      allowPrivate,
    )
    if (call.kind !== 'ok') return call
    const { json } = call.value
    const errors = (json?.errors ?? []) as { message: string; extensions?: { code?: string } }[]
    if (errors.some((e) => e.extensions?.code === 'THROTTLED')) {
      const cost = json?.extensions?.cost
      const missing = (cost?.requestedQueryCost ?? 10) - (cost?.throttleStatus?.currentlyAvailable ?? 0)
      const rate = cost?.throttleStatus?.restoreRate ?? 50
      return { kind: 'retry', error: 'Shopify throttled the call', afterMs: Math.max(1000, (missing / rate) * 1000) }
    }
    if (errors.length > 0) return { kind: 'failed', error: errors.map((e) => e.message).join('; ') }
    return { kind: 'ok', value: json.data }
  }

  return {
    /** A page of the orders created since `since`, oldest first, and the cursor of the next (null at the end). */
    async ordersSince(
      since: number,
      cursor: string | null,
    ): Promise<StoreCall<{ orders: unknown[]; next: string | null }>> {
      const query = `created_at:>='${new Date(since * 1000).toISOString()}'`
      const call = await graphql(ORDERS, { cursor, query })
      if (call.kind !== 'ok') return call
      const page = call.value?.orders
      return {
        kind: 'ok',
        value: {
          orders: (page?.nodes ?? []).map(webhookShapeOf),
          next: page?.pageInfo?.hasNextPage ? page.pageInfo.endCursor : null,
        },
      }
    },
    /** One order, by its id, in its webhooks' shape; null when the store has none. */
    async order(orderId: string): Promise<StoreCall<unknown>> {
      const call = await graphql(ORDER, { id: `gid://shopify/Order/${orderId}` })
      if (call.kind !== 'ok') return call
      return { kind: 'ok', value: call.value?.order ? webhookShapeOf(call.value.order) : null }
    },
    /** Whether the fulfillment already has an event of this status at this time. */
    async hasEvent(fulfillmentId: string, status: string, happenedAt: number): Promise<StoreCall<boolean>> {
      const call = await graphql(EVENTS, { id: fulfillmentGid(fulfillmentId) })
      if (call.kind !== 'ok') return call
      const fulfillment = call.value?.fulfillment
      if (!fulfillment) return { kind: 'failed', error: `Shopify has no fulfillment ${fulfillmentId}` }
      const nodes = (fulfillment.events?.nodes ?? []) as { status: string; happenedAt: string }[]
      return {
        kind: 'ok',
        value: nodes.some((n) => n.status === status && Date.parse(n.happenedAt) === happenedAt * 1000),
      }
    },
    async createEvent(fulfillmentId: string, status: string, happenedAt: number): Promise<StoreCall> {
      const fulfillmentEvent = {
        fulfillmentId: fulfillmentGid(fulfillmentId),
        status,
        happenedAt: new Date(happenedAt * 1000).toISOString(),
      }
      const call = await graphql(CREATE, { fulfillmentEvent })
      if (call.kind !== 'ok') return call
      const userErrors = (call.value?.fulfillmentEventCreate?.userErrors ?? []) as { message: string }[]
      if (userErrors.length > 0) return { kind: 'failed', error: userErrors.map((e) => e.message).join('; ') }
      return { kind: 'ok', value: undefined }
    },
  }
}
