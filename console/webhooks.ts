import type { FastifyReply } from 'fastify'
import {
  createEndpointBody,
  replayEndpointBody,
  rotateSecretBody,
  updateEndpointBody,
  webhookEndpointCommands,
} from '../commands/webhooks/endpoints.ts'
import type { WebhookDeliveryDoc } from '../projectors/webhooks/delivery.ts'
import { renderWebhookDelivery } from '../projectors/webhooks/delivery.ts'
import { renderWebhookEndpoint, type WebhookEndpointDoc } from '../projectors/webhooks/endpoint.ts'
import { isCalendarDate, localMidnight } from '../shared/domain/delivery/calendar.ts'
import { timeZoneOf } from '../projectors/accounts/account.ts'
import { notFound, validationError } from '../shared/domain/errors.ts'
import { webhookMessageTypes } from '../shared/domain/events/webhook-events.ts'
import { sendPage } from '../shared/infra/http/html-page.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { type ConsoleParts, type ConsoleRequest, type ConsoleScope, commandOf, type Query } from './frame.ts'
import { allOf, doneAt, type FormErrors, formOf, parsedForm, submitted, textOrNull } from './forms.ts'
import { renderConsolePage } from './html.ts'
import { endpointHealth } from './endpoint-health.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'

/*
 * Webhook endpoints in the console: add, change, switch off, delete, test,
 * rotate the secret (shown once), replay from a date, and each endpoint's
 * delivery log. Every change is the API's own command on the endpoint.
 */

type Form = Record<string, unknown>
const ENDPOINTS = collections.webhook_endpoints.name
const DELIVERIES = collections.webhook_deliveries.name
/** An endpoint's newest messages read for its health: a day's worth for most receivers. */
const HEALTH_MESSAGES = 500

/** The message types as checkboxes, those the endpoint takes ticked (all of them for "every type"). */
const typeChoices = (enabled: readonly string[] | null | undefined) =>
  webhookMessageTypes.map((type) => ({ type, checked: Boolean(enabled?.includes(type)) }))

/** The endpoint form's fields as the API's body: no type ticked, or "every type", subscribes to all. */
const endpointFormBody = (form: Form) => {
  const types = allOf(form.enabled_events)
  return {
    url: String(form.url ?? '').trim(),
    enabled_events: form.every === 'on' || types.length === 0 ? ['*'] : types,
    description: textOrNull(form.description),
  }
}

export function webhookPages(routes: ConsoleScope, rt: Runtime, { jobs, deliveries }: ConsoleParts) {
  const endpoints = webhookEndpointCommands(rt)
  const endpointOf = async (accountId: number, id: unknown) => {
    const found = await rt.readStore.get<WebhookEndpointDoc>(ENDPOINTS, accountId, Number(id) || 0)
    if (!found || found.doc.deleted) throw notFound('Webhook endpoint not found')
    return found.doc
  }

  const listPage = async (
    c: ConsoleRequest,
    reply: FastifyReply,
    again?: { status: number; errors: FormErrors; values: Form },
  ) => {
    const { docs } = await rt.readStore.find<WebhookEndpointDoc>(ENDPOINTS, {
      accountId: c.account.id,
      where: [{ field: 'deleted', op: 'eq', value: 0 }],
      limit: 100,
    })
    const now = toUnixSeconds(rt.clock.now())
    return sendPage(
      reply,
      again?.status ?? 200,
      renderConsolePage('webhooks', 'Webhooks', c.frame, {
        owner: c.user.role === 'owner',
        endpoints: await Promise.all(
          docs.map(async (d) => {
            const log = await rt.readStore.find<WebhookDeliveryDoc>(DELIVERIES, {
              accountId: c.account.id,
              where: [{ field: 'endpoint_id', op: 'eq', value: d.doc.id }],
              limit: HEALTH_MESSAGES,
            })
            const health = endpointHealth(
              log.docs.map((m) => m.doc),
              now,
            )
            return {
              ...renderWebhookEndpoint(d.doc),
              failingSince: health.failingSince,
              lastDay: health.lastDay && {
                ...health.lastDay,
                percent: Math.round((100 * health.lastDay.taken) / health.lastDay.tried),
              },
            }
          }),
        ),
        types: typeChoices(again ? allOf(again.values.enabled_events) : []),
        values: again?.values ?? {},
        errors: again?.errors,
      }),
    )
  }

  const endpointPage = async (
    c: ConsoleRequest,
    reply: FastifyReply,
    id: unknown,
    extra: { status?: number; secret?: string; errors?: FormErrors; values?: Form } = {},
  ) => {
    const endpoint = renderWebhookEndpoint(await endpointOf(c.account.id, id))
    const { docs } = await rt.readStore.find<WebhookDeliveryDoc>(DELIVERIES, {
      accountId: c.account.id,
      where: [{ field: 'endpoint_id', op: 'eq', value: endpoint.id }],
      limit: 50,
    })
    // Each message's attempts and what it carried, from its own stream: the log keeps every answer.
    const streams = await rt.eventStore.readStreams(docs.map((d) => ({ stream: d.key })))
    const deliveries = docs.map((d, i) => {
      const events = streams[i] ?? []
      const created = events.find((e) => e.type === 'WebhookMessageCreated')?.data as { body?: string } | undefined
      return {
        ...renderWebhookDelivery(d.doc),
        payload: created?.body ? JSON.stringify(JSON.parse(created.body), null, 2) : null,
        tries: events
          .filter((e) => e.type === 'WebhookDeliveryAttempted')
          .map((e) => e.data as { attempt: number; status_code: number | null; error: string | null; at: number }),
      }
    })
    return sendPage(
      reply,
      extra.status ?? 200,
      renderConsolePage('webhook', endpoint.url, c.frame, {
        owner: c.user.role === 'owner',
        endpoint,
        every: endpoint.enabled_events.includes('*'),
        types: typeChoices(extra.values ? allOf(extra.values.enabled_events) : endpoint.enabled_events),
        values: extra.values ?? { url: endpoint.url, description: endpoint.description },
        errors: extra.errors,
        secret: extra.secret,
        deliveries,
        replayAvailable: Boolean(jobs),
      }),
    )
  }

  routes.get('/console/webhooks', 'settings', (c, _request, reply) => listPage(c, reply))
  routes.post('/console/webhooks', (c, request, reply) => {
    const form = formOf(request)
    return submitted(
      async () => {
        const created = endpoints.revealed(
          await endpoints.create(commandOf(c, request), parsedForm(createEndpointBody, endpointFormBody(form))),
        ).body as { id: number; secret: string }
        // The secret is shown in this answer only, never in a URL.
        return endpointPage(c, reply, created.id, { status: 201, secret: created.secret })
      },
      (status, errors) => listPage(c, reply, { status, errors, values: form }),
    )
  })

  routes.get('/console/webhooks/:id', 'settings', (c, request, reply) =>
    endpointPage(c, reply, (request.params as Query).id),
  )
  routes.post('/console/webhooks/:id', (c, request, reply) => {
    const id = Number((request.params as Query).id)
    const form = formOf(request)
    return submitted(
      async () => {
        await endpointOf(c.account.id, id)
        await endpoints.update(commandOf(c, request), id, parsedForm(updateEndpointBody, endpointFormBody(form)))
        return reply.redirect(doneAt(`/console/webhooks/${id}`, 'The endpoint was saved.'), 303)
      },
      (status, errors) => endpointPage(c, reply, id, { status, errors, values: form }),
    )
  })
  routes.post('/console/webhooks/:id/status', async (c, request, reply) => {
    const id = Number((request.params as Query).id)
    await endpointOf(c.account.id, id)
    const status = parsedForm(updateEndpointBody, { status: formOf(request).status }).status
    await endpoints.update(commandOf(c, request), id, { status })
    const words = status === 'disabled' ? 'switched off: nothing is sent to it' : 'switched on'
    return reply.redirect(doneAt(`/console/webhooks/${id}`, `The endpoint was ${words}.`), 303)
  })
  routes.post('/console/webhooks/:id/delete', async (c, request, reply) => {
    const id = Number((request.params as Query).id)
    const endpoint = await endpointOf(c.account.id, id)
    if (formOf(request).confirm !== endpoint.url)
      return endpointPage(c, reply, id, {
        status: 400,
        errors: { details: 'Type the endpoint’s URL to delete it', fields: { confirm: 'must be the endpoint’s URL' } },
      })
    await endpoints.remove(commandOf(c, request), id)
    return reply.redirect(doneAt('/console/webhooks', `${endpoint.url} was deleted.`), 303)
  })
  routes.post('/console/webhooks/:id/test', async (c, request, reply) => {
    const id = Number((request.params as Query).id)
    await endpointOf(c.account.id, id)
    await endpoints.test(commandOf(c, request), id)
    return reply.redirect(
      doneAt(`/console/webhooks/${id}`, 'A webhook.test message is on its way: its answer appears in the log below.'),
      303,
    )
  })
  routes.post('/console/webhooks/:id/rotate', async (c, request, reply) => {
    const id = Number((request.params as Query).id)
    await endpointOf(c.account.id, id)
    const hours = Number(formOf(request).expires_in_hours ?? 24)
    const body = parsedForm(rotateSecretBody, { expires_in: Math.round(hours * 3600) })
    const rotated = endpoints.revealed(await endpoints.rotateSecret(commandOf(c, request), id, body))
    return endpointPage(c, reply, id, { secret: (rotated.body as { secret: string }).secret })
  })
  routes.post('/console/webhooks/:id/deliveries/:delivery/replay', async (c, request, reply) => {
    const { id, delivery } = request.params as Query
    const sent = (
      await endpoints.replayDelivery(commandOf(c, request), deliveries, Number(id) || 0, Number(delivery) || 0)
    ).body as { webhook_id: string; type: string }
    return reply.redirect(
      doneAt(
        `/console/webhooks/${id}`,
        `${sent.webhook_id} (${sent.type}) is being sent again: its answer appears below.`,
      ),
      303,
    )
  })
  routes.post('/console/webhooks/:id/replay', (c, request, reply) => {
    const id = Number((request.params as Query).id)
    const since = String(formOf(request).since ?? '')
    return submitted(
      async () => {
        if (!jobs) throw validationError('Replays need the job queue, which this process does not run')
        if (!isCalendarDate(since))
          throw validationError('since: must be a date YYYY-MM-DD', { since: 'must be a date YYYY-MM-DD' })
        const body = parsedForm(replayEndpointBody, { since: localMidnight(timeZoneOf(c.account), since) })
        const { jobId } = await endpoints.replay(
          commandOf(c, request),
          jobs,
          id,
          body,
          `/v2/webhook_endpoints/${id}/replay`,
          request.log,
        )
        return reply.redirect(
          doneAt(`/console/webhooks/${id}`, `Every message since ${since} is being sent again (job ${jobId}).`),
          303,
        )
      },
      (status, errors) => endpointPage(c, reply, id, { status, errors }),
    )
  })
}
