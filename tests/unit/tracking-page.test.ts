import t from 'tap'
import { brandColorsOf, contrastRatio, defaultTrackingPage } from '../../shared/domain/tracking-page/settings.ts'
import { orderCreated } from '../support/orders.ts'
import type { OrderDoc, TrackerDoc } from '../../shared/domain/orders/document.ts'
import { evolveOrder } from '../../shared/domain/orders/evolve-document.ts'
import { buildTrackingPage } from '../../query-api/tracking-page/page.ts'
import { pageLanguage } from '../../query-api/tracking-page/routes.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { deliveryStatusCodes } from '../../shared/domain/vocabulary/tracking-codes.ts'
import { pickupPlace, sameStreet } from '../../shared/domain/pickup-points/pickup-point.ts'

/* The tracking page's data, from an order document: the pure part of the page. */

const AT = 1_795_000_000
const account = { id: 1, name: 'Acme', language_code: 'en', deleted: false } as AccountDoc
const order = (status: string, shipped: boolean): OrderDoc => {
  const created = evolveOrder(undefined, orderCreated(AT))
  const tracker = {
    id: 3,
    tracking_number: 'TN',
    delivery_status_code: status,
    shipped_at: shipped ? AT : null,
    delivered_at: status === 'delivered' ? AT : null,
    events: [],
    carrier: null,
    untracked_carrier_name: null,
    tracking_link: null,
    untracked_carrier_url: null,
    displayable_expected_delivery_date: null,
  } as unknown as TrackerDoc
  return { ...created, fulfillments: [{ trackers: [tracker] }] } as unknown as OrderDoc
}
const stepsOf = (status: string, shipped = true) => {
  const [parcel] = buildTrackingPage({
    order: order(status, shipped),
    account,
    language: 'en',
    pickupPoints: [],
  }).parcels
  return { tone: parcel!.tone, steps: parcel!.steps.map((s) => `${s.label}:${s.state}`).join(' ') }
}

t.test('each status on the four steps, a problem shown where it happened', async (t) => {
  t.same(stepsOf('pending', false), {
    tone: 'normal',
    steps: 'Ordered:current Shipped:upcoming Out for delivery:upcoming Delivered:upcoming',
  })
  t.same(stepsOf('in_transit'), {
    tone: 'normal',
    steps: 'Ordered:done Shipped:current Out for delivery:upcoming Delivered:upcoming',
  })
  t.same(stepsOf('available_for_pickup'), {
    tone: 'normal',
    steps: 'Ordered:done Shipped:done Ready for pickup:current Delivered:upcoming',
  })
  t.same(stepsOf('failed_attempt'), {
    tone: 'problem',
    steps: 'Ordered:done Shipped:done Delivery attempt failed:current Delivered:upcoming',
  })
  t.same(stepsOf('exception', false), {
    tone: 'problem',
    steps: 'Ordered:current Shipped:upcoming Out for delivery:upcoming Delivered:upcoming',
  })
  t.same(stepsOf('exception'), {
    tone: 'problem',
    steps: 'Ordered:done Shipped:current Out for delivery:upcoming Delivered:upcoming',
  })
  t.same(stepsOf('delivered'), {
    tone: 'done',
    steps: 'Ordered:done Shipped:done Out for delivery:done Delivered:done',
  })
  t.same(stepsOf('returned'), {
    tone: 'problem',
    steps: 'Ordered:done Shipped:done Out for delivery:done Returned to the sender:current',
  })
  for (const status of deliveryStatusCodes) t.ok(stepsOf(status).steps, `${status} has a place`)
})

t.test('the language: asked, the order’s, the account’s, the browser’s, else English', async (t) => {
  t.equal(pageLanguage('fr', 'en'), 'fr')
  t.equal(pageLanguage(undefined, 'fr-CA', 'en'), 'fr')
  t.equal(pageLanguage('de-AT', null, 'FR'), 'de')
  t.equal(pageLanguage('pt', null, 'FR'), 'fr', 'a language shiplog does not write is passed over')
  t.equal(pageLanguage(undefined, undefined, 'xx'), 'en')
})

t.test('a carrier’s pickup address finds the imported point by place and street', async (t) => {
  t.equal(pickupPlace('fr', '69 004'), pickupPlace('FR', '69004'))
  t.not(pickupPlace('FR', '69004'), pickupPlace('BE', '69004'))
  t.ok(sameStreet('12 BD DE LA CROIX ROUSSE', '12 boulevard de la Croix-Rousse'))
  t.ok(sameStreet('34, Rue Vieille du Temple', '34 rue Vieille-du-Temple'))
  t.ok(sameStreet('Place de l’Église', 'PLACE DE L EGLISE'), 'accents and punctuation aside')
  t.notOk(sameStreet('14 boulevard de la Croix-Rousse', '12 boulevard de la Croix-Rousse'), 'another number')
  t.notOk(sameStreet('12 rue de Lyon', '12 avenue de Paris'), 'no word in common')
})

t.test('contrast ratios as WCAG counts them, and the text colour chosen for the brand', async (t) => {
  t.equal(contrastRatio('#000000', '#ffffff'), 21, 'black on white')
  t.equal(contrastRatio('#ffffff', '#000000'), 21, 'either way round')
  t.equal(contrastRatio('#777777', '#777777'), 1, 'a colour on itself')
  t.equal(Number(contrastRatio('#1a56db', '#ffffff').toFixed(2)), 6.18, 'the default brand blue on white')
  t.equal(brandColorsOf({ ...defaultTrackingPage, primary_color: '#ffd84d' }).onBrand, '#000000', 'black on yellow')
  t.equal(brandColorsOf({ ...defaultTrackingPage, primary_color: '#1a56db' }).onBrand, '#ffffff', 'white on blue')
})
