import { readFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import type { Browser, Page } from 'playwright-core'
import { axeViolations, browserSkip, keep, splitWords, startBrowser, widthsOf } from '../support/browser.ts'
import { csvForm } from '../support/csv.ts'
import { waitForJob } from '../support/jobs.ts'
import { startTestServer } from '../support/server.ts'
import { createOrder, linkOf, pushEvents, trackedOrder } from '../support/tracking-page.ts'

/*
 * The tracking page as a customer sees it, in Debian's Chromium: what the
 * page reads like, the lookup form followed, the language switched, axe-core's
 * accessibility rules, a phone's screen. SHIPLOG_SCREENSHOTS=<folder> keeps
 * the English and French pages as PNG files (docs/images/ holds them).
 */

const skip = browserSkip()
const T0 = 1_795_000_000

/** A shop with a brand, one order of two parcels: one out for delivery, one waiting at a pickup point. */
async function shop(t: Test) {
  const server = await startTestServer(t)
  await server.request('PATCH', '/v2/tracking_page', {
    body: {
      brand_name: 'Atelier Lumière',
      primary_color: '#7a1fa2',
      support_email: 'help@atelier.example',
      support_url: 'https://atelier.example/help',
    },
  })
  // The README's example file, so the picture the README shows is what that file imports.
  const csv = readFileSync('examples/pickup-points.csv', 'utf8')
  await waitForJob(server, (await server.upload('/v2/pickup_points/import', csvForm(csv))).body.id)
  // No thumbnails: the page would load them from the shop's CDN, which a test machine cannot reach.
  const order = await createOrder(
    server,
    trackedOrder({
      line_items: [
        { merchant_id: 'L1', name: 'Blue mug', quantity: 2 },
        { merchant_id: 'L2', name: 'Linen tea towel', quantity: 1 },
      ],
    }),
  )
  const position = await pushEvents(server, [
    {
      tracking_number: '6A12345678901',
      event_type_code: 'label_created',
      happened_at: T0 - 86_400,
      message: 'Label created',
    },
    {
      tracking_number: '6A12345678901',
      event_type_code: 'origin_scan',
      happened_at: T0,
      message: 'Parcel handed to Colissimo',
      messages: { fr: 'Colis remis à Colissimo' },
      address: { city: 'Paris', zip: '75015', country_code: 'FR' },
    },
    {
      tracking_number: '6A12345678901',
      event_type_code: 'out_for_delivery',
      happened_at: T0 + 86_400,
      message: 'Out for delivery',
      messages: { fr: 'En cours de livraison' },
      address: { city: 'Lyon', zip: '69004', country_code: 'FR' },
      expected_delivery_at: T0 + 86_400,
    },
    { tracking_number: 'XY123456789FR', event_type_code: 'transit', happened_at: T0, message: 'In transit' },
    {
      tracking_number: 'XY123456789FR',
      event_type_code: 'pickup_point',
      happened_at: T0 + 7200,
      message: 'Available at your pickup point',
      messages: { fr: 'Disponible dans votre point de retrait' },
      address: { address1: '12 BD DE LA CROIX ROUSSE', city: 'LYON', zip: '69004', country_code: 'FR' },
    },
  ])
  const { token } = (await linkOf(server, order.id, position)).body
  return { server, token }
}

/** What a person reads in an element: its text, whitespace as shown. */
const textOf = (page: Page, selector: string) => page.locator(selector).allInnerTexts()

// One shop and one browser for the file's tests, closed when it ends.
let fixture: Awaited<ReturnType<typeof shop>> & { browser: Browser }
if (!skip) t.before(async () => (fixture = { ...(await shop(t)), browser: await startBrowser(t) }))

t.test('reads as a customer sees it: status, date, pickup point and timeline', { skip }, async (t) => {
  const { server, token, browser } = fixture
  const page = await browser.newPage()
  const refused: string[] = []
  page.on('console', (m) => m.text().includes('Content Security Policy') && refused.push(m.text()))
  await page.goto(`${server.url}/track/${token}`)
  t.equal(await page.title(), 'Order W-2001')
  t.equal(await page.locator('h1').innerText(), 'Your order W-2001')
  t.same(await textOf(page, '.status'), ['Out for delivery', 'Ready for pickup'])
  t.same(await textOf(page, '.parcel:first-of-type .step[aria-current="step"] .step-label'), ['Out for delivery'])
  t.match((await textOf(page, '.expected-delivery'))[0], /Thursday, November 19, 2026/)
  t.match(
    (await textOf(page, '.pickup-point address'))[0],
    /Tabac de la Croix-Rousse\s+12 boulevard de la Croix-Rousse\s+69004 Lyon/,
  )
  const hours = await textOf(page, '.opening-hours tr')
  t.match(hours[0], /Monday\s+08:30–12:30, 14:00–19:00/)
  t.match(hours[5], /Saturday\s+09:00–12:30/, 'Saturday as examples/pickup-points.csv opens it')
  const timeline = await textOf(page, '.parcel:first-of-type .event .message')
  t.same(timeline, ['Out for delivery', 'Parcel handed to Colissimo', 'Label created'], 'newest first')
  t.match((await textOf(page, '.parcel:first-of-type .event time'))[1], 'Nov 18, 2026, 12:06 PM')
  t.equal(await page.locator('.brand-name').innerText(), 'Atelier Lumière')
  const brand = await page
    .locator('.step.done .marker')
    .first()
    .evaluate((e) => (globalThis as any).getComputedStyle(e).backgroundColor)
  t.equal(brand, 'rgb(122, 31, 162)', 'the brand colour, from the hashed style the policy allows')
  t.same(refused, [], 'nothing refused by the Content-Security-Policy')
  await keep(page, 'tracking-page-en.png', { width: 800, height: 1200 })
  await page.close()
})

t.test('switches language from the page’s own links', { skip }, async (t) => {
  const { server, token, browser } = fixture
  const page = await browser.newPage()
  await page.goto(`${server.url}/track/${token}`)
  await page.getByRole('link', { name: 'Français' }).click()
  await page.waitForURL(/lang=fr/)
  t.equal(await page.locator('h1').innerText(), 'Votre commande W-2001')
  t.same(await textOf(page, '.status'), ['En cours de livraison', 'Disponible en point de retrait'])
  t.equal((await textOf(page, '.parcel:first-of-type .event .message'))[0], 'En cours de livraison')
  t.match((await textOf(page, '.expected-delivery'))[0], /jeudi 19 novembre 2026/)
  t.equal(await page.locator('html').getAttribute('lang'), 'fr')
  await keep(page, 'tracking-page-fr.png', { width: 800, height: 1200 })
  await page.close()
})

t.test('the lookup form leads to the order’s page; a wrong pair says not found', { skip }, async (t) => {
  const { server, token, browser } = fixture
  const page = await browser.newPage()
  await page.goto(`${server.url}/track?account=${server.accountId}`)
  await page.getByLabel('Order number').fill('W-2001')
  await page.getByLabel('E-mail address or postcode').fill('nobody@example.org')
  await page.getByRole('button', { name: 'Track my order' }).click()
  t.match(await page.getByRole('alert').innerText(), /We found no order with this number/)
  t.equal(await page.getByLabel('Order number').inputValue(), 'W-2001', 'what was typed stays')
  await page.getByLabel('E-mail address or postcode').fill('69004')
  await page.getByRole('button', { name: 'Track my order' }).click()
  await page.waitForURL(`**/track/${token}?lang=en`)
  t.equal(await page.locator('h1').innerText(), 'Your order W-2001')
  await page.close()
})

t.test('no serious or critical accessibility violation (axe-core), on every page', { skip }, async (t) => {
  const { server, token, browser } = fixture
  // axe is put in the page by the test: the page's own policy allows no script.
  const context = await browser.newContext({ bypassCSP: true })
  for (const path of [
    `/track/${token}`,
    `/track/${token}?lang=fr`,
    `/track?account=${server.accountId}`,
    '/track/nothing',
  ]) {
    const page = await context.newPage()
    await page.goto(`${server.url}${path}`)
    const violations = await axeViolations(page)
    t.same(
      violations.map((v) => `${v.id}: ${v.help}`),
      [],
      path,
    )
    await page.close()
  }
  await context.close()
})

t.test('a phone-sized screen shows the page without horizontal scrolling', { skip }, async (t) => {
  const { server, token, browser } = fixture
  const context = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true })
  for (const path of [`/track/${token}`, `/track/${token}?lang=fr`, `/track?account=${server.accountId}`]) {
    const page = await context.newPage()
    await page.goto(`${server.url}${path}`)
    const widths = await widthsOf(page)
    t.ok(widths.content <= widths.screen, `${path}: ${widths.content} px wide on a ${widths.screen} px screen`)
    await page.close()
  }
  await context.close()
})

t.test(
  'in each of the six languages, on a phone: whole words, no sideways scroll, nothing axe objects to',
  { skip },
  async (t) => {
    const { server, token, browser } = fixture
    const phone = await browser.newContext({ viewport: { width: 375, height: 812 }, isMobile: true, bypassCSP: true })
    const headings: Record<string, string> = {
      en: 'Your order W-2001',
      fr: 'Votre commande W-2001',
      de: 'Ihre Bestellung W-2001',
      es: 'Tu pedido W-2001',
      it: 'Il tuo ordine W-2001',
      nl: 'Je bestelling W-2001',
    }
    for (const [language, heading] of Object.entries(headings)) {
      const page = await phone.newPage()
      await page.goto(`${server.url}/track/${token}?lang=${language}`)
      t.equal(await page.locator('h1').innerText(), heading, `${language}: its own words`)
      t.equal(await page.locator('html').getAttribute('lang'), language)
      t.same(await splitWords(page), [], `${language}: no word broken across lines`)
      const widths = await widthsOf(page)
      t.ok(widths.content <= widths.screen, `${language}: ${widths.content} px wide on a ${widths.screen} px screen`)
      t.same(
        (await axeViolations(page)).map((v) => `${v.id}: ${v.help}`),
        [],
        `${language}: axe`,
      )
      t.match(
        (await textOf(page, '.event .place'))[0],
        /, (France|Frankreich|Francia|Frankrijk)$/,
        'the country by its name',
      )
      t.match((await textOf(page, '.event time'))[0], / (CET|MEZ|UTC\+1)$/, 'the time with its zone')
      await keep(page, `tracking-page-${language}-phone.png`, { width: 375, height: 812 })
      await page.close()
    }
    // Without an order or an account to say, the browser's language chooses.
    const browserAsked = await browser.newContext({
      locale: 'es-ES',
      extraHTTPHeaders: { 'accept-language': 'es-ES,es;q=0.9' },
    })
    const spanish = await browserAsked.newPage()
    await spanish.goto(`${server.url}/track/no-such-link`)
    t.equal(await spanish.locator('h1').innerText(), 'Página no encontrada', 'Accept-Language chooses the page')
    await browserAsked.close()
    await phone.close()
  },
)

t.test('on a laptop the page uses the width: the parcels beside the order', { skip }, async (t) => {
  const { server, token, browser } = fixture
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
  await page.goto(`${server.url}/track/${token}`)
  const parcel = await page.locator('.parcel').first().boundingBox()
  const items = await page.locator('.items').boundingBox()
  t.ok(parcel && items && items.x > parcel.x + parcel.width, 'the order beside the parcels, not under them')
  t.ok(parcel && parcel.width > 600, `the parcels take the width (${parcel?.width} px)`)
  await keep(page, 'tracking-page-laptop.png', { width: 1280, height: 900 })
  await page.close()
})
