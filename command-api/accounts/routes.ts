import {
  accountResource,
  notificationTypeResource,
  trackingPageSettingsResource,
} from '../../projectors/resources/schemas.ts'
import { z } from 'zod'
import { type AccountDoc, notificationSettingsOf, renderAccount } from '../../projectors/accounts/account.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { POSITION_HEADER } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import {
  accountSettingsBody,
  changeAccountSettings,
  changeNotificationType,
  changeTrackingPage,
  notificationTypeBody,
  trackingPageBody,
} from '../../commands/accounts/settings.ts'
import { notificationSlugs, notificationTypes } from '../../shared/domain/notifications/types.ts'
import { renderNotificationType } from '../../projectors/resources/render.ts'

export function accountWriteRoutes(app: App, rt: Runtime) {
  const originOf = (request: Parameters<typeof callerOf>[0]) => ({
    source: 'api' as const,
    correlationId: request.id,
    keyId: callerOf(request).keyId,
  })

  app.patch(
    '/v2/account',
    {
      schema: {
        body: accountSettingsBody,
        response: { 200: accountResource },
        summary:
          "Change the account's settings: its customers' default language, the quiet hours of SMS, the delay rules, the console's time zone",
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const { position } = await changeAccountSettings(rt, account, request.body, originOf(request))
      const doc = await rt.readStore.get<AccountDoc>(collections.accounts.name, account.id, account.id)
      return reply.header(POSITION_HEADER, position.toString()).send(renderAccount(doc!.doc))
    },
  )

  app.patch(
    '/v2/tracking_page',
    {
      schema: {
        body: trackingPageBody,
        response: { 200: trackingPageSettingsResource },
        summary: 'Change the tracking page: brand, support contacts, custom CSS, contact details shown',
      },
    },
    async (request, reply) => {
      const { account } = callerOf(request)
      const { position, tracking_page } = await changeTrackingPage(rt, account, request.body, originOf(request))
      return reply.header(POSITION_HEADER, position.toString()).send({ object: 'tracking_page', ...tracking_page })
    },
  )

  app.patch(
    '/v2/notification_types/:slug',
    {
      schema: {
        params: z.object({ slug: z.enum(notificationSlugs) }),
        body: notificationTypeBody,
        response: { 200: notificationTypeResource },
        summary: 'Turn a type of customer notification on or off for the account, or choose its channels',
      },
    },
    async (request, reply) => {
      const { slug } = request.params
      const changed = await changeNotificationType(rt, callerOf(request).account, slug, request.body, originOf(request))
      return reply
        .header(POSITION_HEADER, changed.position.toString())
        .send(renderNotificationType(notificationTypes[slug], notificationSettingsOf(changed.account, slug)))
    },
  )
}
