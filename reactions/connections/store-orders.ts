import { ShiplogError } from '../../shared/domain/errors.ts'
import type { ConnectionState } from '../../shared/domain/connections/connection.ts'
import type { EventData } from '../../shared/domain/events/index.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { executeCommand, metadataFor } from '../../commands/execute.ts'
import { orderOfStore } from '../../commands/connections/store-orders.ts'
import { planOrderUpsert } from '../../commands/orders/upsert.ts'
import { startReaction } from '../follow.ts'
import { shopifyStore } from '../../shared/infra/stores/shopify.ts'

type ReactionRuntime = Pick<Runtime, 'eventStore' | 'readStore' | 'config' | 'clock' | 'ids' | 'logger' | 'secrets'>

/**
 * The orders stores send: each recorded webhook of an order topic becomes an
 * upsert through POST /v2/orders' own command, once per delivery (the
 * command's idempotency key is the delivery's stream). A payload that is no
 * order shiplog can take is logged and passed over; a store down or a
 * fault retries the batch from the reaction's checkpoint.
 */
export function startStoreOrdersReaction(rt: ReactionRuntime) {
  const log = rt.logger.child({ role: 'store-orders' })
  return startReaction(rt, {
    name: 'store_orders',
    only: () => ({ types: ['StoreWebhookReceived'] }),
    async handle(batch) {
      let done = false
      for (const recorded of batch) {
        if (recorded.type !== 'StoreWebhookReceived') continue
        const data = recorded.data as EventData<'StoreWebhookReceived'>
        const accountId = recorded.metadata.accountId
        const [account, connection] = await Promise.all([
          rt.readStore.get<AccountDoc>(collections.accounts.name, accountId, accountId),
          rt.readStore.get<ConnectionState>(collections.connections.name, accountId, data.connection_id),
        ])
        if (!account || account.doc.deleted || !connection || connection.doc.deleted) continue
        let payload: unknown
        try {
          payload = JSON.parse(data.body)
        } catch {
          payload = undefined
        }
        // A fulfillment's own webhook names its order by id only: the order is read from the store, whole.
        if (data.topic.startsWith('fulfillments/')) {
          const orderId = (payload as { order_id?: unknown } | undefined)?.order_id
          const store = shopifyStore(
            rt.config.SHIPLOG_SHOPIFY_API_URL ?? connection.doc.shop,
            rt.secrets.open(connection.doc.credentials.access_token!),
            rt.config.SHIPLOG_CONNECTOR_ALLOW_PRIVATE,
          )
          const read = orderId === undefined ? undefined : await store.order(String(orderId))
          if (read?.kind === 'retry') throw new ShiplogError('SHIPLOG_ERR_UNAVAILABLE', read.error)
          if (read?.kind !== 'ok' || read.value === null) {
            log.warn(
              { connection: data.connection_id, delivery: data.delivery_id, order: orderId },
              'fulfillment of no order the store gives',
            )
            continue
          }
          payload = read.value
        }
        const mapped = orderOfStore(connection.doc.platform, payload)
        if (!mapped.ok) {
          log.warn(
            { connection: data.connection_id, delivery: data.delivery_id, error: mapped.error },
            'store order refused',
          )
          continue
        }
        const command = {
          source: 'reaction' as const,
          account: account.doc,
          correlationId: `store_${data.connection_id}_${data.delivery_id}`,
          idempotency: { key: recorded.stream, method: 'POST', path: '/v2/orders', body: mapped.order },
        }
        const response = await executeCommand(rt, command, async () => {
          const plan = await planOrderUpsert(rt, account.doc, mapped.order, (at) => metadataFor(command, at))
          return { appends: [plan.append], status: plan.status, body: plan.body, readPosition: plan.readPosition }
        })
        if (response.status >= 500) throw new ShiplogError('SHIPLOG_ERR_UNAVAILABLE', 'store order not recorded')
        done = true
      }
      return done
    },
  })
}
