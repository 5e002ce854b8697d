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

export const fulfillmentGid = (id: string) => `gid://shopify/Fulfillment/${id}`

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
