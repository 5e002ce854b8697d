import t, { type Test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { createUser } from '../../commands/users/change-user.ts'
import { axeViolations, browserSkip, keep, startBrowser, widthsOf } from '../support/browser.ts'
import { startReceiver } from '../support/receiver.ts'
import { postTrackers, recordTrackingEvents, startTestServer } from '../support/server.ts'
import { DAY, isoDay, nowSeconds } from '../support/time.ts'

/*
 * The console's second half in Debian's Chromium: the analytics charts with
 * their tables and CSV, and every setting changed in the console and read
 * back from the API (the tracking page's brand, an endpoint and its
 * deliveries, a notification type, the carrier services, the API keys,
 * console users). A member reads the settings and is refused the owner's
 * page. axe-core on each page at 375 and 1280 px.
 */

const skip = browserSkip()
const PASSWORD = 'correct horse battery'

/** A shop with an owner, a member, and twelve weeks of delivered parcels on three carriers. */
async function shop(t: Test) {
  const server = await startTestServer(t, { env: { SHIPLOG_WEBHOOK_ALLOW_PRIVATE: 'true' } })
  for (const [email, role] of [
    ['olga@shop.example', 'owner'],
    ['max@shop.example', 'member'],
  ] as const)
    await createUser(server.runtime, { accountId: server.accountId, email, role, password: PASSWORD })
  const carriers = [
    ['colissimo', 'FR', 2],
    ['dhl', 'DE', 3],
    ['ups', 'IT', 4],
  ] as const
  // Shipped at noon UTC, whatever the hour the test runs: from 22:00 UTC a
  // parcel shipped in Rome's summer time and delivered in its winter time
  // would change its shipping day and not its delivery day, and its transit.
  const noon = Math.floor(nowSeconds() / DAY) * DAY + DAY / 2
  const parcels = Array.from({ length: 60 }, (_, i) => {
    const [carrier, country, days] = carriers[i % 3]!
    const shipped = noon - (80 - i) * DAY
    const late = i % 4 === 0
    return {
      carrier,
      country,
      shipped,
      delivered: shipped + (days + (late ? 3 : 0)) * DAY,
      promise: shipped + (days + 1) * DAY,
      number: `CS${String(100000 + i)}`,
      failed: i % 7 === 0,
    }
  })
  await postTrackers(
    server,
    parcels.map((p, i) => ({
      order_number: `A-${5001 + i}`,
      tracking_number: p.number,
      carrier_code: p.carrier,
      email: `customer${i}@example.com`,
      address_country: p.country,
      expected_delivery_at: `${isoDay(p.promise)}T18:00:00Z`,
    })),
  )
  await recordTrackingEvents(
    server,
    parcels.flatMap((p) => [
      { tracking_number: p.number, event_type_code: 'origin_scan', happened_at: p.shipped, message: 'Received' },
      ...(p.failed
        ? [
            {
              tracking_number: p.number,
              event_type_code: 'failed_attempt',
              happened_at: p.delivered - 3600 * 5,
              message: 'Nobody home',
            },
          ]
        : []),
      { tracking_number: p.number, event_type_code: 'delivered', happened_at: p.delivered, message: 'Delivered' },
    ]),
  )
  return server
}

let fixture: { server: Awaited<ReturnType<typeof shop>>; browser: Browser }
if (!skip) t.before(async () => (fixture = { server: await shop(t), browser: await startBrowser(t) }))

async function signedIn(email = 'olga@shop.example', viewport = { width: 1280, height: 900 }) {
  const context = await fixture.browser.newContext({ viewport })
  const page = await context.newPage()
  await page.goto(`${fixture.server.url}/console/login`)
  await page.getByLabel('E-mail').fill(email)
  await page.getByLabel('Password').fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL(/\/console$/)
  return { context, page }
}

/** The message of the change just made, once the page it leads to has loaded. */
const flash = async (page: Page) => {
  await page.waitForURL(/done=/)
  return page.locator('.flash').innerText()
}

const go = async (page: Page, path: string) => {
  await page.goto(`${fixture.server.url}${path}`)
  return page
}

t.test(
  'the brand changed in the console is the API’s, with the API’s message for a wrong value',
  { skip },
  async (t) => {
    const { server } = fixture
    const { context, page } = await signedIn()
    await page.getByRole('link', { name: 'Settings' }).click()
    t.equal(new URL(page.url()).pathname, '/console/settings/account', 'Settings opens on the account')
    await page.getByRole('link', { name: 'Tracking page' }).click()
    await page.getByLabel('Brand name').fill('Maison Lumière')
    await page.getByLabel('Brand colour (#RRGGBB)').fill('plum')
    await page.getByRole('button', { name: 'Save' }).click()
    t.equal(await page.locator('#primary_color-error').innerText(), 'must be a colour #RRGGBB', 'beside the field')
    const refused = await server.request('PATCH', '/v2/tracking_page', { body: { primary_color: 'plum' } })
    t.equal(refused.body.errors.primary_color, 'must be a colour #RRGGBB', 'the same words as the API')
    t.equal(await page.getByLabel('Brand name').inputValue(), 'Maison Lumière', 'what was typed is kept')

    await page.getByLabel('Brand colour (#RRGGBB)').fill('#7a1f5c')
    await page.getByLabel('Support e-mail').fill('help@lumiere.example')
    await page.getByRole('button', { name: 'Save' }).click()
    t.equal(await flash(page), 'The tracking page was saved.')
    const api = await server.request('GET', '/v2/tracking_page')
    t.match(api.body, { brand_name: 'Maison Lumière', primary_color: '#7a1f5c', support_email: 'help@lumiere.example' })

    const preview = page.frameLocator('#preview-frame')
    t.match(await preview.locator('body').innerText(), /Maison Lumière/, 'the preview is the page with the brand')
    await page.getByLabel('Brand name').fill('Lumière Paris')
    for (let i = 0; i < 100; i++) {
      if ((await page.locator('#preview-frame').getAttribute('src'))?.includes('Lumi%C3%A8re+Paris')) break
      await page.waitForTimeout(50)
    }
    await page.frameLocator('#preview-frame').getByText('Lumière Paris').first().waitFor()
    t.pass('the preview follows the form as one types')
    await keep(page, 'console-settings-tracking-page.png', { width: 1280, height: 900 })
    const widthOfFrame = async () => (await page.locator('#preview-frame').boundingBox())!.width
    t.equal(Math.round(await widthOfFrame()), 375, 'a phone’s width first')
    await page.getByLabel('a laptop (1280 px, shown smaller)').check()
    t.equal(Math.round(await widthOfFrame()), 512, 'a laptop’s, scaled to the column')
    await keep(page, 'console-settings-tracking-page-laptop.png', { width: 1280, height: 900 })
    await context.close()
  },
)

t.test('an endpoint added in the console receives a test message, logged with its answer', { skip }, async (t) => {
  const { server } = fixture
  const receiver = await startReceiver(t)
  const { context, page } = await signedIn()
  await go(page, '/console/webhooks')
  await page.getByLabel('URL').fill('ftp://nowhere')
  await page.getByRole('button', { name: 'Add the endpoint' }).click()
  t.equal(await page.locator('#url-error').innerText(), 'must be an http:// or https:// URL')
  await page.getByLabel('URL').fill(receiver.url)
  await page.getByLabel('tracker.delayed').check()
  await page.getByRole('button', { name: 'Add the endpoint' }).click()
  const secret = await page.getByLabel('Signing secret').inputValue()
  t.match(secret, /^whsec_/, 'the secret, shown once')
  const [endpoint] = (await server.request('GET', '/v2/webhook_endpoints')).body.data
  t.match(endpoint, { url: receiver.url, enabled_events: ['tracker.delayed'] })
  await go(page, `/console/webhooks/${endpoint.id}`)
  t.equal(await page.getByLabel('Signing secret').count(), 0, 'never shown again')

  await page.getByRole('button', { name: 'Send a test message' }).click()
  const [test] = await receiver.waitFor(1)
  t.equal(test!.json.type, 'webhook.test')
  let log = ''
  for (let i = 0; i < 100 && !/HTTP 200/.test(log); i++) {
    await go(page, `/console/webhooks/${endpoint.id}`)
    log = await page.locator('table').innerText()
  }
  t.match(log, /webhook\.test[\s\S]*succeeded[\s\S]*HTTP 200/, 'the log shows the answer')
  await page.getByText('Attempts and payload').first().click()
  t.match(await page.locator('ol.attempts').first().innerText(), /HTTP 200/, 'each attempt’s answer')
  t.match(await page.locator('pre.email').first().innerText(), /"type": "webhook.test"/, 'the payload sent')
  await page.getByRole('button', { name: `Send again ${test!.headers['webhook-id']}` }).click()
  t.match(await page.getByRole('status').first().innerText(), /is being sent again/, 'the page says so')
  const [, again] = await receiver.waitFor(2)
  t.equal(again!.headers['webhook-id'], test!.headers['webhook-id'], 'the same message went again')
  await keep(page, 'console-webhook.png', { width: 1280, height: 900 })

  await page.getByRole('button', { name: 'Switch off' }).click()
  t.equal((await server.request('GET', `/v2/webhook_endpoints/${endpoint.id}`)).body.status, 'disabled')
  await page.getByRole('button', { name: 'Rotate the secret' }).click()
  t.not(await page.getByLabel('Signing secret').inputValue(), secret, 'a new secret, shown once')
  await page.getByLabel('Type its URL to confirm').fill(receiver.url)
  await page.getByRole('button', { name: 'Delete the endpoint' }).click()
  t.match(await page.getByRole('status').innerText(), /was deleted/)
  t.equal((await server.request('GET', `/v2/webhook_endpoints/${endpoint.id}`)).status, 404)
  await context.close()
})

t.test('the time zone chosen from the list is the API’s, and every page names it', { skip }, async (t) => {
  const { server } = fixture
  const { context, page } = await signedIn()
  await go(page, '/console/settings/account')
  t.equal(await page.locator('p.zone').innerText(), 'Times in UTC.')
  await page.getByLabel('The console shows times and days in').selectOption('Europe/Paris')
  await page.getByRole('button', { name: 'Save' }).click()
  t.equal(await flash(page), 'Times are now in Europe/Paris.')
  t.equal((await server.request('GET', '/v2/account')).body.time_zone, 'Europe/Paris')
  t.equal(await page.getByLabel('The console shows times and days in').inputValue(), 'Europe/Paris', 'shown as chosen')
  await keep(page, 'console-settings-account.png', { width: 1280, height: 900 })
  await go(page, '/console/parcels')
  t.equal(await page.locator('p.zone').innerText(), 'Times in Europe/Paris.')
  await server.request('PATCH', '/v2/account', { body: { time_zone: 'UTC' } })
  await context.close()
})

t.test('notifications, carriers, keys and users change as the API would change them', { skip }, async (t) => {
  const { server } = fixture
  const { context, page } = await signedIn()
  await go(page, '/console/notifications')
  await page.getByLabel('Shipped: on').uncheck()
  await page.locator('button[form="type-shipped"]').click()
  t.equal(await flash(page), 'Shipped was saved.')
  const types = (await server.request('GET', '/v2/notification_types')).body.data
  t.equal(types.find((n: { slug: string }) => n.slug === 'shipped').enabled, false)
  await page.getByLabel('A parcel is stalled after this many business days without a scan').fill('5')
  await page.getByRole('button', { name: 'Save', exact: true }).last().click()
  t.equal((await server.request('GET', '/v2/account')).body.delay_rules.stalled_after_business_days, 5)
  await keep(page, 'console-notifications.png', { width: 1280, height: 900 })
  await go(page, '/console/notifications/samples/delayed/fr')
  t.match(await page.locator('pre.email').first().innerText(), /Camille/, 'a sample in French')
  t.match(await page.locator('main').innerText(), /Maison Lumière|Lumière Paris/, 'with the brand')

  await go(page, '/console/settings/carriers')
  await page.getByLabel('Carrier code').fill('dhl')
  await page.getByLabel('Service code').fill('parcel')
  await page.getByLabel('Name').fill('DHL Paket')
  await page
    .getByLabel('Lanes: one a line, origin and destination country (* for any) and transit days')
    .fill('DE FR 2\n* * x')
  await page.getByRole('button', { name: 'Save the service' }).click()
  t.match(await page.locator('.error').innerText(), /transit_days\.1\.days/, 'the API’s message for the second lane')
  await page
    .getByLabel('Lanes: one a line, origin and destination country (* for any) and transit days')
    .fill('DE FR 2\n* * 4')
  await page.getByRole('button', { name: 'Save the service' }).click()
  t.equal(await flash(page), 'DHL Paket was saved.')
  const services = (await server.request('GET', '/v2/carrier_services')).body.data
  t.match(
    services.find((s: { code: string }) => s.code === 'parcel'),
    {
      carrier: { code: 'dhl' },
      name: 'DHL Paket',
      transit_days: [{ origin: 'DE', destination: 'FR', days: 2 }, { days: 4 }],
    },
    'the API reads the service',
  )
  t.match(await page.locator('table').first().innerText(), /aftership|17track|dhl/i, 'the carrier APIs and their state')
  await keep(page, 'console-carriers.png', { width: 1280, height: 900 })

  await go(page, '/console/settings/team')
  await page.getByLabel('E-mail').fill('nina@shop.example')
  await page.getByLabel(/First password/).fill('short')
  await page.getByRole('button', { name: 'Add the user' }).click()
  t.match(await page.getByRole('alert').innerText(), /password/, 'the password rule, said')
  await page.getByLabel(/First password/).fill('a long enough passphrase')
  await page.getByRole('button', { name: 'Add the user' }).click()
  t.match(await page.locator('table').innerText(), /nina@shop\.example\s+member/)
  await page.getByLabel('Remove nina@shop.example…').click()
  t.match(
    await page.locator('details[open] form').innerText(),
    'nina@shop.example can no longer sign in',
    'the consequence first',
  )
  await page.getByRole('button', { name: 'Remove nina@shop.example' }).click()
  t.notMatch(await page.locator('table').innerText(), /nina@shop\.example/)

  await page.getByRole('button', { name: 'Rotate the API keys' }).click()
  t.match(await page.getByRole('alert').innerText(), /Tick the box/, 'not without saying so')
  await page.getByLabel('I understand the current keys stop working now').check()
  await page.getByRole('button', { name: 'Rotate the API keys' }).click()
  const key = await page.getByLabel('Private key').inputValue()
  t.equal((await server.request('GET', '/v2/account')).status, 401, 'the old key stops working')
  t.equal((await server.request('GET', '/v2/account', { key })).status, 200, 'the new one works')
  server.privateKey = key
  await keep(page, 'console-team.png', { width: 1280, height: 900 })
  await context.close()
})

t.test('the analytics: six charts, each with its table and its CSV', { skip }, async (t) => {
  const { context, page } = await signedIn()
  await page.getByRole('link', { name: 'Analytics' }).click()
  const figures = page.locator('figure')
  t.equal(await figures.count(), 6)
  t.same(await page.locator('figure h2').allInnerTexts(), [
    'On time against the promise, by carrier and week',
    'Transit time by week (business days, p50 and p90)',
    'Transit time by carrier and lane (business days, p50 to p90)',
    'Failed attempts, exceptions and returns by carrier',
    'Estimate accuracy: delivered against the promised day',
    'Delay detection: late parcels flagged a day ahead, and false alarms',
  ])
  t.match(
    await page.locator('#accuracy .takeaway').innerText(),
    /^\d+ % arrived on the promised day, \d+ % before it and \d+ % after it, of \d+ parcels\.$/,
  )
  t.equal(await page.locator('#accuracy svg rect.bar').count(), 9, 'a bar a day, three early to five late')
  t.match(
    await page.locator('.kpis').innerText(),
    /60\s+parcels delivered\s+\d+ %\s+on time against their promise\s+\d+ d\s+median transit/,
    'the headline figures first',
  )
  t.match(await page.locator('[aria-labelledby="headline"] p').innerText(), 'Of 60 parcels delivered.')
  t.match(await page.locator('#on-time .takeaway').innerText(), /kept \d+ % of its promises/)
  t.equal(await page.locator('#on-time svg path').count(), 3, 'a line per carrier')
  t.match(
    await page.locator('#transit-weeks .takeaway').innerText(),
    /half the parcels arrived within \d+ business days/,
  )
  t.equal(await page.locator('#transit-weeks svg path').count(), 2, 'a line for p50, one for p90')
  await page.locator('#transit-weeks summary').click()
  t.match(await page.locator('#transit-weeks table').innerText(), /week\s+delivered\s+transit_p50\s+transit_p90/)
  await page.locator('#transit summary').click()
  t.match(await page.locator('#transit table').innerText(), /ups\s+IT\s+20\s+3\s+5/, 'p50 and p90 per lane')
  const csv = await page.request.get(
    await page
      .locator('#transit a[download]')
      .getAttribute('href')
      .then((h) => `${fixture.server.url}${h}`),
  )
  t.equal(csv.headers()['content-type'], 'text/csv; charset=utf-8')
  t.match(await csv.text(), /^carrier,destination_country,delivered,transit_p50,transit_p90\n/)
  await page.getByRole('link', { name: '4 weeks' }).click()
  t.match(page.url(), /weeks=4/, 'the period is in the address')
  await page.getByLabel('From').fill('2026-02-01')
  await page.getByLabel('To').fill('2026-01-01')
  await page.getByRole('button', { name: 'Show' }).click()
  t.equal(await page.locator('#from-error').innerText(), 'must not be after to')
  await go(page, '/console/analytics?weeks=12')
  await keep(page, 'console-analytics.png', { width: 1280, height: 900 })
  await page.setViewportSize({ width: 375, height: 812 })
  const widths = await widthsOf(page)
  t.ok(widths.content <= widths.screen, `no sideways scroll on a phone: ${widths.content} px`)
  await keep(page, 'console-analytics-phone.png', { width: 375, height: 812 })
  await context.close()
})

t.test('a member reads the settings, changes none, and is refused the keys and users', { skip }, async (t) => {
  const { context, page } = await signedIn('max@shop.example')
  await go(page, '/console/settings/tracking-page')
  t.match(await page.locator('.note').innerText(), /only an owner/)
  t.ok(await page.getByLabel('Brand name').isDisabled(), 'the form is read-only')
  t.equal(await page.getByRole('link', { name: 'API keys and users' }).count(), 0)
  const refused = await page.goto(`${fixture.server.url}/console/settings/team`)
  t.equal(refused!.status(), 403)
  t.match(await page.locator('main').innerText(), /Only an owner of the account/)
  await context.close()
})

t.test('no serious or critical accessibility violation on the new pages, at 375 and 1280 px', { skip }, async (t) => {
  for (const viewport of [
    { width: 375, height: 812 },
    { width: 1280, height: 900 },
  ]) {
    const context = await fixture.browser.newContext({ bypassCSP: true, viewport })
    const page = await context.newPage()
    await page.goto(`${fixture.server.url}/console/login`)
    await page.getByLabel('E-mail').fill('olga@shop.example')
    await page.getByLabel('Password').fill(PASSWORD)
    await page.getByRole('button', { name: 'Sign in' }).click()
    await page.waitForURL(/\/console$/)
    for (const path of [
      '/console/analytics',
      '/console/settings/account',
      '/console/settings/tracking-page',
      '/console/notifications',
      '/console/notifications/samples/shipped/de',
      '/console/webhooks',
      '/console/settings/connections',
      '/console/settings/carriers',
      '/console/settings/team',
    ]) {
      await go(page, path)
      t.same(
        (await axeViolations(page)).map((v) => `${v.id}: ${v.help}`),
        [],
        `${path} at ${viewport.width} px`,
      )
      const widths = await widthsOf(page)
      t.ok(widths.content <= widths.screen, `${path}: ${widths.content} px wide on a ${widths.screen} px screen`)
    }
    await context.close()
  }
})
