import {
  accountResource,
  notificationTypeResource,
  trackingPageSettingsResource,
} from '../../projectors/resources/schemas.ts'
import { trackingPageOf, trackingPageSettings } from '../../shared/domain/tracking-page/settings.ts'
import { z } from 'zod'
import { type AccountDoc, renderAccount } from '../../projectors/accounts/account.ts'
import { accountLanguage } from '../../shared/domain/notifications/languages.ts'
import { callerOf } from '../../shared/infra/http/auth.ts'
import { POSITION_HEADER } from '../../shared/infra/http/read-your-writes.ts'
import type { App } from '../../shared/infra/http/server.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { changeAccount } from '../../commands/accounts/change-account.ts'
import { notificationSlugs, notificationTypes } from '../../shared/domain/notifications/types.ts'
import { channelList } from '../../shared/domain/vocabulary/channels.ts'
import { delayRules, quietHours } from '../../shared/domain/events/account-events.ts'
import { delayRulesOf, notificationSettingsOf } from '../../projectors/accounts/account.ts'
import { renderNotificationType } from '../../projectors/resources/render.ts'

export const updateAccountBody = z
  .strictObject({
    language_code: accountLanguage,
    sms_quiet_hours: quietHours.nullable(),
    /** Either rule alone may be sent: the other keeps its value. */
    delay_rules: delayRules.partial(),
  })
  .partial()
  .refine((body) => Object.keys(body).length > 0, 'must change language_code, sms_quiet_hours or delay_rules')

export function accountWriteRoutes(app: App, rt: Runtime) {
  app.patch(
    '/v2/account',
    {
      schema: {
        body: updateAccountBody,
        response: { 200: accountResource },
        summary:
          "Change the account's settings: its customers' default language, the quiet hours of SMS, the delay rules",
      },
    },
    async (request, reply) => {
      const { account, keyId } = callerOf(request)
      const { delay_rules, ...rest } = request.body
      const changes = delay_rules ? { ...rest, delay_rules: { ...delayRulesOf(account), ...delay_rules } } : rest
      const { position } = await changeAccount(
        rt,
        account.id,
        (at) => ({ type: 'UpdateAccount', data: { changes, at } }),
        { source: 'api', correlationId: request.id, keyId },
      )
      const doc = await rt.readStore.get<AccountDoc>(collections.accounts.name, account.id, account.id)
      return reply.header(POSITION_HEADER, position.toString()).send(renderAccount(doc!.doc))
    },
  )

  app.patch(
    '/v2/tracking_page',
    {
      schema: {
        body: trackingPageSettings.partial().strict(),
        response: { 200: trackingPageSettingsResource },
        summary: 'Change the tracking page: brand, support contacts, custom CSS, contact details shown',
      },
    },
    async (request, reply) => {
      const { account, keyId } = callerOf(request)
      const tracking_page = { ...trackingPageOf(account), ...request.body }
      const { position } = await changeAccount(
        rt,
        account.id,
        (at) => ({ type: 'UpdateAccount', data: { changes: { tracking_page }, at } }),
        { source: 'api', correlationId: request.id, keyId },
      )
      return reply.header(POSITION_HEADER, position.toString()).send({ object: 'tracking_page', ...tracking_page })
    },
  )

  app.patch(
    '/v2/notification_types/:slug',
    {
      schema: {
        params: z.object({ slug: z.enum(notificationSlugs) }),
        body: z
          .strictObject({ enabled: z.boolean(), channels: channelList })
          .partial()
          .refine((body) => Object.keys(body).length > 0, 'must change enabled or channels'),
        response: { 200: notificationTypeResource },
        summary: 'Turn a type of customer notification on or off for the account, or choose its channels',
      },
    },
    async (request, reply) => {
      const { account, keyId } = callerOf(request)
      const { slug } = request.params
      const { enabled, channels } = request.body
      const disabled = new Set(account.disabled_notification_types ?? [])
      if (enabled === true) disabled.delete(slug)
      if (enabled === false) disabled.add(slug)
      const changes = {
        disabled_notification_types: notificationSlugs.filter((s) => disabled.has(s)),
        ...(channels && { notification_channels: { ...account.notification_channels, [slug]: channels } }),
      }
      const { position } = await changeAccount(
        rt,
        account.id,
        (at) => ({ type: 'UpdateAccount', data: { changes, at } }),
        { source: 'api', correlationId: request.id, keyId },
      )
      const updated = { ...account, ...changes }
      return reply
        .header(POSITION_HEADER, position.toString())
        .send(renderNotificationType(notificationTypes[slug], notificationSettingsOf(updated, slug)))
    },
  )
}
