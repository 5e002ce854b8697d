import type { FastifyReply, FastifyRequest } from 'fastify'
import { rotateKeys } from '../commands/accounts/change-account.ts'
import {
  accountSettingsBody,
  changeAccountSettings,
  changeNotificationType,
  changeTrackingPage,
  notificationTypeBody,
  trackingPageBody,
} from '../commands/accounts/settings.ts'
import { carrierServiceBody, configureCarrierService, serviceCode } from '../commands/carrier-services/configure.ts'
import { createUser, deleteUser } from '../commands/users/change-user.ts'
import { delayRulesOf, notificationSettingsOf, timeZoneOf } from '../projectors/accounts/account.ts'
import { configuredServices } from '../projectors/carrier-services/configured.ts'
import { type NotificationDoc, sendsByType } from '../projectors/notifications/notification.ts'
import { performanceBetween } from '../projectors/deliveries/performance.ts'
import type { OrderDoc } from '../shared/domain/orders/document.ts'
import { notificationLanguages } from '../shared/domain/notifications/languages.ts'
import { type NotificationSlug, notificationSlugs, notificationTypes } from '../shared/domain/notifications/types.ts'
import { contrastRatio, trackingPageOf, type TrackingPageSettings } from '../shared/domain/tracking-page/settings.ts'
import { notFound, validationError } from '../shared/domain/errors.ts'
import { toUnixSeconds } from '../shared/domain/time.ts'
import { weekdays } from '../shared/domain/events/pickup-point-events.ts'
import type { UserState } from '../shared/domain/users/user.ts'
import type { ConfiguredCarrierApi } from '../shared/infra/carriers/apis.ts'
import { type CarrierLedger, carrierApiFigures } from '../shared/infra/carriers/ledger.ts'
import { sendPage } from '../shared/infra/http/html-page.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'
import { smsSettings } from '../shared/infra/config.ts'
import { trackingPageUrlOf } from '../shared/infra/tracking-tokens.ts'
import { sampleMessages } from '../reactions/notifications/sample-messages.ts'
import { trackingPagePreview } from '../query-api/tracking-page/preview.ts'
import type { ConsoleRequest, ConsoleScope, Query } from './frame.ts'
import { allOf, doneAt, type FormErrors, formOf, parsedForm, submitted, textOrNull, ticked } from './forms.ts'
import { renderConsolePage } from './html.ts'
import { firstIdOfWeek } from './health.ts'

/*
 * The settings pages: the tracking page, notifications, carriers, and (for
 * owners) the API keys and console users. Members read them; owners change
 * them, through the same commands and checks as the API.
 */

type Form = Record<string, unknown>
const LANGUAGE_NAMES = new Intl.DisplayNames(['en'], { type: 'language' })
type Again = { status: number; errors: FormErrors; values?: Form }

/**
 * The time zones a select offers, grouped by their region (`Europe`,
 * `America`) with UTC first: the IANA names Intl knows, read once.
 */
const zoneRegions = (() => {
  let regions: { name: string; zones: { id: string; label: string }[] }[] | undefined
  return () => {
    if (regions) return regions
    const byRegion = new Map<string, { id: string; label: string }[]>([['UTC', [{ id: 'UTC', label: 'UTC' }]]])
    for (const id of Intl.supportedValuesOf('timeZone')) {
      const slash = id.indexOf('/')
      if (slash < 0) continue
      const region = id.slice(0, slash)
      if (!byRegion.has(region)) byRegion.set(region, [])
      byRegion.get(region)!.push({ id, label: id.replaceAll('_', ' ') })
    }
    regions = [...byRegion].map(([name, zones]) => ({ name, zones }))
    return regions
  }
})()

/** WCAG 2.2's least contrast for a border or a focus ring against what is beside it. */
const NON_TEXT_CONTRAST = 3
/** A brand colour too faint on the tracking page's white for its borders and focus rings: its ratio, in words. */
const faintOnWhite = (color: unknown) => {
  if (typeof color !== 'string' || !/^#[0-9a-f]{6}$/i.test(color)) return undefined
  const ratio = contrastRatio(color, '#ffffff')
  return ratio < NON_TEXT_CONTRAST ? `${ratio.toFixed(1)}:1` : undefined
}

const origin = (request: FastifyRequest) => ({ source: 'console' as const, correlationId: request.id })

/** The tracking page's fields as its form sends them: an empty field is "not set". */
const trackingPageFormBody = (form: Form) => ({
  brand_name: textOrNull(form.brand_name),
  logo_url: textOrNull(form.logo_url),
  primary_color: textOrNull(form.primary_color),
  support_email: textOrNull(form.support_email),
  support_url: textOrNull(form.support_url),
  custom_css: textOrNull(form.custom_css),
  show_contact_details: ticked(form.show_contact_details),
})

/** A quick sample of a lane per line, `FR DE 2`, `* * 3`: origin, destination (`*` any), days. */
const lanesOf = (text: unknown) =>
  String(text ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .map((line) => {
      const [origin, destination, days] = line.split(/\s+/)
      const country = (code: string | undefined) => (!code || code === '*' ? null : code.toUpperCase())
      return { origin: country(origin), destination: country(destination), days: Number(days) }
    })

const lanesText = (lanes: readonly { origin: string | null; destination: string | null; days: number }[]) =>
  lanes.map((l) => `${l.origin ?? '*'} ${l.destination ?? '*'} ${l.days}`).join('\n')

export function settingsPages(
  routes: ConsoleScope,
  rt: Runtime,
  carriers: { settings: readonly ConfiguredCarrierApi[]; ledger: CarrierLedger | undefined },
) {
  const today = () => rt.clock.now().toISOString().slice(0, 10)
  const latestOrder = async (accountId: number) =>
    (await rt.readStore.find<OrderDoc>(collections.orders.name, { accountId, limit: 1 })).docs[0]?.doc

  routes.get('/console/settings', 'settings', async (_c, _request, reply) =>
    reply.redirect('/console/settings/account', 303),
  )

  // The account: its name, its id, the time zone the console's times and days are in.
  const accountForm = (c: ConsoleRequest, reply: FastifyReply, again?: Again) => {
    const chosen = again?.values?.time_zone ?? timeZoneOf(c.account)
    return sendPage(
      reply,
      again?.status ?? 200,
      renderConsolePage('account', 'Account', c.frame, {
        account: c.account,
        owner: c.user.role === 'owner',
        errors: again?.errors,
        regions: zoneRegions().map(({ name, zones }) => ({
          name,
          zones: zones.map((zone) => ({ ...zone, selected: zone.id === chosen })),
        })),
      }),
    )
  }
  routes.get('/console/settings/account', 'settings', (c, _request, reply) => accountForm(c, reply))
  routes.post('/console/settings/account', (c, request, reply) => {
    const form = formOf(request)
    return submitted(
      async () => {
        const body = parsedForm(accountSettingsBody, { time_zone: form.time_zone })
        await changeAccountSettings(rt, c.account, body, origin(request))
        return reply.redirect(doneAt('/console/settings/account', `Times are now in ${body.time_zone}.`), 303)
      },
      (status, errors) => accountForm(c, reply, { status, errors, values: form }),
    )
  })

  // The tracking page: its form beside the page itself, as a customer would see it with these settings.
  const trackingPageForm = async (c: ConsoleRequest, reply: FastifyReply, again?: Again) => {
    const saved = trackingPageOf(c.account)
    const values = again?.values ?? saved
    const order = await latestOrder(c.account.id)
    const draft = new URLSearchParams(
      Object.entries(values).flatMap(([k, v]): [string, string][] =>
        v === null || v === false || v === undefined ? [] : [[k, String(v)]],
      ),
    )
    return sendPage(
      reply,
      again?.status ?? 200,
      renderConsolePage('tracking-page-settings', 'Tracking page', c.frame, {
        values,
        errors: again?.errors,
        owner: c.user.role === 'owner',
        preview: order ? `/console/settings/tracking-page/preview?${draft}` : null,
        contrast: faintOnWhite(values.primary_color),
      }),
    )
  }
  routes.get('/console/settings/tracking-page', 'settings', (c, _request, reply) => trackingPageForm(c, reply))
  routes.post('/console/settings/tracking-page', (c, request, reply) => {
    const form = trackingPageFormBody(formOf(request))
    return submitted(
      async () => {
        await changeTrackingPage(rt, c.account, parsedForm(trackingPageBody, form), origin(request))
        return reply.redirect(doneAt('/console/settings/tracking-page', 'The tracking page was saved.'), 303)
      },
      (status, errors) => trackingPageForm(c, reply, { status, errors, values: form }),
    )
  })
  routes.get('/console/settings/tracking-page/preview', 'settings', async (c, request, reply) => {
    const order = await latestOrder(c.account.id)
    if (!order) throw notFound('The preview needs one order of the account')
    // A draft the API would refuse shows the saved settings: the form beside it names what is wrong.
    const draft = trackingPageBody.safeParse(trackingPageFormBody(request.query as Form))
    const settings: TrackingPageSettings = draft.success
      ? { ...trackingPageOf(c.account), ...draft.data }
      : trackingPageOf(c.account)
    const page = await trackingPagePreview(rt, { ...c.account, tracking_page: settings }, order)
    return sendPage(reply, 200, page, { framedBy: 'self' })
  })

  // Notifications: each type's channels with the week's sends, the default language, SMS quiet hours, the delay rules.
  const smsReady = smsSettings(rt.config) !== undefined
  /** The week's notifications counted at most: past them, the page says the counts are of the newest. */
  const SENDS_COUNTED = 10_000
  const notificationsForm = async (c: ConsoleRequest, reply: FastifyReply, again?: Again) => {
    // The week's notifications, newest first, up to a bound: a page, not a report.
    const week = await rt.readStore.find<NotificationDoc>(collections.notifications.name, {
      accountId: c.account.id,
      startingAfter: firstIdOfWeek(toUnixSeconds(rt.clock.now())),
      limit: SENDS_COUNTED,
    })
    const sends = sendsByType(week.docs.map((d) => d.doc))
    return sendPage(
      reply,
      again?.status ?? 200,
      renderConsolePage('notifications', 'Notifications', c.frame, {
        owner: c.user.role === 'owner',
        smsReady,
        errors: again?.errors,
        countedUpTo: week.hasMore ? SENDS_COUNTED : undefined,
        types: notificationSlugs.map((slug) => {
          const settings = notificationSettingsOf(c.account, slug)
          return {
            slug,
            name: notificationTypes[slug].name,
            description: notificationTypes[slug].description,
            enabled: settings.enabled,
            email: settings.channels.includes('email'),
            sms: settings.channels.includes('sms'),
            emailSends: sends.get(`${slug}|email`),
            smsSends: sends.get(`${slug}|sms`),
          }
        }),
        languages: notificationLanguages.map((code) => ({
          code,
          name: LANGUAGE_NAMES.of(code),
          selected: code === c.account.language_code,
        })),
        quiet: c.account.sms_quiet_hours ?? null,
        rules: delayRulesOf(c.account),
      }),
    )
  }
  routes.get('/console/notifications', 'settings', (c, _request, reply) => notificationsForm(c, reply))
  routes.post('/console/notifications/types/:slug', (c, request, reply) => {
    const slug = (request.params as Query).slug as NotificationSlug
    if (!notificationSlugs.includes(slug)) throw notFound('No such notification type')
    const form = formOf(request)
    return submitted(
      async () => {
        const body = parsedForm(notificationTypeBody, { enabled: ticked(form.enabled), channels: allOf(form.channels) })
        await changeNotificationType(rt, c.account, slug, body, origin(request))
        return reply.redirect(doneAt('/console/notifications', `${notificationTypes[slug].name} was saved.`), 303)
      },
      (status, errors) => notificationsForm(c, reply, { status, errors }),
    )
  })
  routes.post('/console/notifications/settings', (c, request, reply) => {
    const form = formOf(request)
    return submitted(
      async () => {
        const quiet = ticked(form.quiet_hours)
          ? { from: String(form.quiet_from ?? ''), until: String(form.quiet_until ?? '') }
          : null
        const stalled = String(form.stalled_after_business_days ?? '').trim()
        const body = parsedForm(accountSettingsBody, {
          language_code: form.language_code,
          sms_quiet_hours: quiet,
          delay_rules: {
            stalled_after_business_days: stalled === '' ? undefined : Number(stalled),
            notify_at_risk: ticked(form.notify_at_risk),
          },
        })
        await changeAccountSettings(rt, c.account, body, origin(request))
        return reply.redirect(doneAt('/console/notifications', 'The settings were saved.'), 303)
      },
      (status, errors) => notificationsForm(c, reply, { status, errors }),
    )
  })
  routes.get('/console/notifications/samples/:slug/:language', 'settings', async (c, request, reply) => {
    const { slug, language } = request.params as Query
    if (!notificationSlugs.includes(slug as NotificationSlug) || !notificationLanguages.includes(language as never))
      throw notFound('No such notification type or language')
    const order = await latestOrder(c.account.id)
    const link = order ? trackingPageUrlOf(rt, c.account.id, order) : null
    const { email, sms } = sampleMessages(c.account, slug as NotificationSlug, language!, link, today())
    return sendPage(
      reply,
      200,
      renderConsolePage('sample', email.subject, c.frame, {
        type: notificationTypes[slug as NotificationSlug].name,
        language,
        languages: notificationLanguages.map((code) => ({ code, current: code === language })),
        slug,
        email,
        sms,
      }),
    )
  })

  // Carriers: the tracking APIs' state and budget, and each configured service beside its learned transit.
  const carriersForm = async (c: ConsoleRequest, reply: FastifyReply, again?: Again, edit?: string) => {
    const services = await configuredServices(rt, c.account.id)
    const editing = services.find((s) => `${s.carrier_code}/${s.service_code}` === edit)
    const values: Form =
      again?.values ??
      (editing
        ? { ...editing, lanes: lanesText(editing.transit_days) }
        : { cutoff_time: '16:00', time_zone: 'Europe/Paris', lanes: '* * 2' })
    const apis = carriers.ledger ? await carrierApiFigures(carriers.settings, carriers.ledger) : []
    const to = today()
    const from = new Date(Date.parse(to) - 12 * 7 * 86_400_000).toISOString().slice(0, 10)
    const performance = await performanceBetween(rt, c.account.id, { from, to }, ['carrier', 'service'])
    const learned = services.map((s) =>
      performance.find((r) => r.group.carrier === s.carrier_code && r.group.service === s.service_code),
    )
    return sendPage(
      reply,
      again?.status ?? 200,
      renderConsolePage('carriers', 'Carriers', c.frame, {
        owner: c.user.role === 'owner',
        apis,
        queueAway: !carriers.ledger,
        services: services.map((s, i) => ({
          ...s,
          lanes: lanesText(s.transit_days),
          learned: learned[i],
        })),
        weekdays: weekdays.map((day) => ({
          day,
          pickup: ((values.pickup_days as string[] | undefined) ?? weekdays.slice(0, 5)).includes(day),
          delivery: ((values.delivery_days as string[] | undefined) ?? weekdays.slice(0, 5)).includes(day),
        })),
        values,
        errors: again?.errors,
      }),
    )
  }
  routes.get('/console/settings/carriers', 'settings', (c, request, reply) =>
    carriersForm(c, reply, undefined, (request.query as Query).edit),
  )
  routes.post('/console/settings/carriers', (c, request, reply) => {
    const form = formOf(request)
    const values = { ...form, pickup_days: allOf(form.pickup_days), delivery_days: allOf(form.delivery_days) }
    return submitted(
      async () => {
        const codes = parsedForm(serviceCode, form.carrier_code ?? '')
        const service = parsedForm(serviceCode, form.service_code ?? '')
        const body = parsedForm(carrierServiceBody, {
          name: form.name,
          transit_days: lanesOf(form.lanes),
          cutoff_time: form.cutoff_time,
          time_zone: form.time_zone,
          pickup_days: values.pickup_days,
          delivery_days: values.delivery_days,
        })
        const command = { ...origin(request), account: c.account }
        await configureCarrierService(rt, command, codes, service, body)
        return reply.redirect(doneAt('/console/settings/carriers', `${body.name} was saved.`), 303)
      },
      (status, errors) => carriersForm(c, reply, { status, errors, values }),
    )
  })

  // API keys and console users: owners only.
  const usersOf = async (accountId: number) =>
    (await rt.readStore.find<UserState>(collections.users.name, { accountId, limit: 500 })).docs
      .map((d) => d.doc)
      .filter((u) => !u.deleted)
      .sort((a, b) => a.email.localeCompare(b.email))
  const teamPage = async (c: ConsoleRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) =>
    sendPage(
      reply,
      status,
      renderConsolePage('team', 'API keys and users', c.frame, {
        users: (await usersOf(c.account.id)).map((u) => ({ ...u, self: u.email === c.user.email })),
        ...extra,
      }),
    )
  routes.get('/console/settings/team', 'settings', (c, _request, reply) => teamPage(c, reply), 'owner')
  routes.post('/console/settings/team/keys', async (c, request, reply) => {
    if (!ticked(formOf(request).understood))
      return teamPage(c, reply, { keyError: 'Tick the box to say the current keys may stop working.' }, 400)
    const keys = await rotateKeys(rt, c.account.id, origin(request))
    request.log.info({ account: c.account.id, user: c.user.user_id }, 'console rotated the API keys')
    // Shown in this answer only: never in a URL, never again.
    return teamPage(c, reply, { keys })
  })
  routes.post('/console/settings/team/users', (c, request, reply) => {
    const form = formOf(request)
    const email = String(form.email ?? '').trim()
    return submitted(
      async () => {
        if (!/^[^@\s]+@[^@\s]+$/.test(email))
          throw validationError('The e-mail is not an address', { email: 'is not an address' })
        const role = form.role === 'owner' ? 'owner' : 'member'
        await createUser(
          rt,
          { accountId: c.account.id, email, role, password: String(form.password ?? '') },
          origin(request),
        )
        return reply.redirect(doneAt('/console/settings/team', `${email} can now sign in.`), 303)
      },
      (status, errors) => teamPage(c, reply, { userErrors: errors, values: { email, role: form.role } }, status),
    )
  })
  routes.post('/console/settings/team/users/:id/delete', async (c, request, reply) => {
    const id = Number((request.params as Query).id)
    const user = (await usersOf(c.account.id)).find((u) => u.user_id === id)
    if (!user) throw notFound('No such user in this account')
    if (user.email === c.user.email) throw validationError('You cannot remove yourself; ask another owner')
    await deleteUser(rt, user.email, origin(request))
    return reply.redirect(doneAt('/console/settings/team', `${user.email} can no longer sign in.`), 303)
  })
}
