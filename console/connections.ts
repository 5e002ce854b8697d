import type { FastifyReply } from 'fastify'
import { backfillConnection, disconnectStore } from '../commands/connections/change.ts'
import { renderConnection } from '../projectors/connections/connection.ts'
import { timeZoneOf } from '../projectors/accounts/account.ts'
import type { ConnectionState } from '../shared/domain/connections/connection.ts'
import { isCalendarDate, localDayOf, localMidnight } from '../shared/domain/delivery/calendar.ts'
import { notFound, validationError } from '../shared/domain/errors.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'
import { sendPage } from '../shared/infra/http/html-page.ts'
import { publicUrlOf } from '../shared/infra/http/public-url.ts'
import type { JobQueue } from '../shared/infra/jobs/queue.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { type ConsoleRequest, type ConsoleScope, commandOf, type Query } from './frame.ts'
import { doneAt, type FormErrors, formOf, submitted } from './forms.ts'
import { renderConsolePage } from './html.ts'

/*
 * Store connections in the console: each store with its state and the
 * address to give it for its order webhooks; bring its orders in since a
 * day, or disconnect it. Connecting a store (its credentials) is the API's
 * `POST /v2/connections` (docs/connectors.md).
 */

/** The store a connection is to, as the merchant knows it: its Shopify domain or its WooCommerce address. */
const shopOf = (resource: ReturnType<typeof renderConnection>) => resource.shop_domain ?? resource.store_url

const PLATFORM_NAMES = { shopify: 'Shopify', woocommerce: 'WooCommerce' } as const
/** A sync brings in a week of orders unless another day is chosen. */
const SYNC_DAYS = 7
const DAY = 86_400

export function connectionPages(routes: ConsoleScope, rt: Runtime, jobs: JobQueue | undefined) {
  const now = () => toUnixSeconds(rt.clock.now())
  const connectionOf = async (accountId: number, id: unknown) => {
    const stored = await rt.readStore.get<ConnectionState>(collections.connections.name, accountId, Number(id) || 0)
    if (!stored || stored.doc.deleted) throw notFound('No such connection in this account')
    return stored.doc
  }

  const listPage = async (
    c: ConsoleRequest,
    reply: FastifyReply,
    baseUrl: string,
    again?: { status: number; errors: FormErrors; id: number },
  ) => {
    const found = await rt.readStore.find<ConnectionState>(collections.connections.name, {
      accountId: c.account.id,
      limit: 100,
    })
    const zone = timeZoneOf(c.account)
    return sendPage(
      reply,
      again?.status ?? 200,
      renderConsolePage('connections', 'Store connections', c.frame, {
        owner: c.user.role === 'owner',
        jobs: jobs !== undefined,
        since: localDayOf(zone, now() - SYNC_DAYS * DAY),
        connections: found.docs
          .map((d) => d.doc)
          .filter((state) => !state.deleted)
          .map((state) => {
            const resource = renderConnection(c.account.id, state, baseUrl)
            return {
              ...resource,
              platformName: PLATFORM_NAMES[resource.platform],
              shop: shopOf(resource),
              errors: again?.id === resource.id ? again.errors : undefined,
            }
          }),
      }),
    )
  }

  routes.get('/console/settings/connections', 'settings', (c, request, reply) =>
    listPage(c, reply, publicUrlOf(rt, request)),
  )

  // Sync now: the store's orders created since a day (its midnight in the account's zone), as a job.
  routes.post('/console/settings/connections/:id/sync', (c, request, reply) => {
    const id = Number((request.params as Query).id)
    const since = String(formOf(request).since ?? '')
    return submitted(
      async () => {
        await connectionOf(c.account.id, id)
        if (!jobs) throw validationError('A sync needs the job queue, which this process does not run')
        if (!isCalendarDate(since))
          throw validationError('since: must be a date YYYY-MM-DD', { since: 'must be a date YYYY-MM-DD' })
        const { jobId } = await backfillConnection(
          rt,
          jobs,
          commandOf(c, request),
          id,
          localMidnight(timeZoneOf(c.account), since),
          `/v2/connections/${id}/backfill`,
          request.log,
        )
        return reply.redirect(
          doneAt('/console/settings/connections', `The store’s orders since ${since} are coming in (job ${jobId}).`),
          303,
        )
      },
      (status, errors) => listPage(c, reply, publicUrlOf(rt, request), { status, errors, id }),
    )
  })

  routes.post('/console/settings/connections/:id/delete', async (c, request, reply) => {
    const connection = await connectionOf(c.account.id, (request.params as Query).id)
    await disconnectStore(rt, commandOf(c, request), connection.id)
    const shop = shopOf(renderConnection(c.account.id, connection, ''))
    return reply.redirect(
      doneAt('/console/settings/connections', `${shop} is disconnected: its parcels here are still tracked.`),
      303,
    )
  })
}
