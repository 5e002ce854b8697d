import t from 'tap'
import { orderCreated } from '../support/orders.ts'
import { evolveOrder } from '../../shared/domain/orders/evolve-document.ts'
import { evolveOrderState } from '../../shared/domain/orders/state.ts'
import { decideTrackingLinkRotation } from '../../shared/domain/orders/tracking-link-rotation.ts'
import { brandColorsOf, defaultTrackingPage, trackingPageSettings } from '../../shared/domain/tracking-page/settings.ts'
import { specOf } from '../support/decider.ts'

const given = specOf({ decide: decideTrackingLinkRotation, evolve: evolveOrderState })
const AT = 1_800_000_000
const created = orderCreated(AT)

t.test('an order’s tracking link is rotated to the link id the command brings', async (t) => {
  given([created])
    .when({ link_id: 42, at: AT + 1 })
    .thenEvents(t, [{ type: 'TrackingLinkRotated', data: { link_id: 42, at: AT + 1 } }])
})

t.test('a second rotation is recorded too: each revokes the link before it', async (t) => {
  given([created, { type: 'TrackingLinkRotated', data: { link_id: 42, at: AT + 1 } }])
    .when({ link_id: 43, at: AT + 1 })
    .thenEvents(t, [{ type: 'TrackingLinkRotated', data: { link_id: 43, at: AT + 1 } }])
})

t.test('no order, no link to rotate', async (t) => {
  given([]).when({ link_id: 42, at: AT }).thenThrows(t, { code: 'SHIPLOG_ERR_NOT_FOUND' })
})

t.test('the read model keeps the current link id, and the order resource does not change for it', async (t) => {
  const order = evolveOrder(undefined, created)
  const rotated = evolveOrder(order, { type: 'TrackingLinkRotated', data: { link_id: 42, at: AT + 5 } })
  t.equal(order.tracking_link_id, undefined, 'link 0 until the first rotation')
  t.equal(rotated.tracking_link_id, 42)
  t.equal(rotated.updated_at, order.updated_at, 'not a change of the order: no updated_at, no webhook')
})

t.test('tracking page settings: what a merchant may set, each field checked', async (t) => {
  const valid = {
    ...defaultTrackingPage,
    logo_url: 'https://cdn.shop.example/logo.svg',
    primary_color: '#7A1FA2',
    support_email: 'help@shop.example',
    support_url: 'http://shop.example/help',
    custom_css: '.brand-name { color: #333 }',
    brand_name: '  Atelier  ',
  }
  t.match(trackingPageSettings.parse(valid), { brand_name: 'Atelier' })
  const refused = (change: object) =>
    trackingPageSettings.safeParse({ ...valid, ...change }).error?.issues.map((i) => i.path.join('.'))
  t.same(refused({ logo_url: 'http://cdn.shop.example/logo.svg' }), ['logo_url'], 'a logo only over https')
  t.same(refused({ logo_url: 'data:image/png;base64,AAAA' }), ['logo_url'])
  t.same(refused({ support_url: 'javascript:alert(1)' }), ['support_url'])
  t.same(refused({ primary_color: '#7a1fa' }), ['primary_color'])
  t.same(refused({ primary_color: 'purple' }), ['primary_color'])
  t.same(refused({ custom_css: 'a{}</style><script>' }), ['custom_css'], 'CSS cannot close its element')
  t.same(refused({ custom_css: 'x'.repeat(20_001) }), ['custom_css'])
  t.same(refused({ support_email: 'a@b.c, d@e.f' }), ['support_email'])
})

t.test('the brand colour carries black or white text, whichever reads better', async (t) => {
  t.same(brandColorsOf({ ...defaultTrackingPage, primary_color: '#7a1fa2' }), { brand: '#7a1fa2', onBrand: '#ffffff' })
  t.same(brandColorsOf({ ...defaultTrackingPage, primary_color: '#ffd700' }), { brand: '#ffd700', onBrand: '#000000' })
  t.same(brandColorsOf({ ...defaultTrackingPage, primary_color: '#777777' }), { brand: '#777777', onBrand: '#000000' })
  t.same(brandColorsOf(defaultTrackingPage), { brand: '#1a56db', onBrand: '#ffffff' }, 'the default blue')
})
