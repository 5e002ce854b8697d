import { callStore, type StoreCall } from './calls.ts'

/*
 * WooCommerce's REST API v3, as shiplog writes a parcel's news back: an
 * order note per status change (the notes are read first, so none is
 * written twice), and the order completed once every parcel is delivered.
 * HTTP Basic with the consumer key and secret.
 */

export function wooCommerceStore(storeUrl: string, key: string, secret: string, allowPrivate: boolean) {
  const headers = {
    'content-type': 'application/json',
    authorization: `Basic ${Buffer.from(`${key}:${secret}`).toString('base64')}`,
  }
  const order = (id: string) => `${storeUrl}/wp-json/wc/v3/orders/${encodeURIComponent(id)}`
  return {
    /** A page (from 1) of the orders created since `since`, oldest first, and whether another follows. */
    async ordersSince(since: number, page: number): Promise<StoreCall<{ orders: unknown[]; more: boolean }>> {
      const after = encodeURIComponent(new Date(since * 1000).toISOString())
      const url = `${storeUrl}/wp-json/wc/v3/orders?after=${after}&per_page=100&page=${page}&orderby=date&order=asc`
      const call = await callStore(url, { method: 'GET', headers }, allowPrivate)
      if (call.kind !== 'ok') return call
      const pages = Number(call.value.headers.get('x-wp-totalpages') ?? 1)
      return {
        kind: 'ok',
        value: { orders: Array.isArray(call.value.json) ? call.value.json : [], more: page < pages },
      }
    },
    async hasNote(orderId: string, note: string): Promise<StoreCall<boolean>> {
      const call = await callStore(`${order(orderId)}/notes`, { method: 'GET', headers }, allowPrivate)
      if (call.kind !== 'ok') return call
      const notes = (Array.isArray(call.value.json) ? call.value.json : []) as { note?: string }[]
      return { kind: 'ok', value: notes.some((n) => n.note === note) }
    },
    async addNote(orderId: string, note: string): Promise<StoreCall> {
      const body = JSON.stringify({ note, customer_note: false })
      const call = await callStore(`${order(orderId)}/notes`, { method: 'POST', headers, body }, allowPrivate)
      return call.kind === 'ok' ? { kind: 'ok', value: undefined } : call
    },
    async complete(orderId: string): Promise<StoreCall> {
      const body = JSON.stringify({ status: 'completed' })
      const call = await callStore(order(orderId), { method: 'PUT', headers, body }, allowPrivate)
      return call.kind === 'ok' ? { kind: 'ok', value: undefined } : call
    },
  }
}
