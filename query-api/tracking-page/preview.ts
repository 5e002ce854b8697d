import type { PickupPointDoc } from '../../projectors/pickup-points/pickup-point.ts'
import type { NotificationLanguage } from '../../shared/domain/notifications/languages.ts'
import type { OrderDoc } from '../../shared/domain/orders/document.ts'
import { trackingPageOf } from '../../shared/domain/tracking-page/settings.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { renderTrackingPage } from './html.ts'
import { buildTrackingPage, pickupPlacesOf } from './page.ts'

/** What an order's tracking page shows, with the pickup points its parcels wait at. */
export async function trackingPageDataOf(
  rt: Pick<Runtime, 'readStore'>,
  order: OrderDoc,
  account: AccountDoc,
  language: NotificationLanguage,
) {
  const places = pickupPlacesOf(order)
  let pickupPoints: PickupPointDoc[] = []
  if (places.length > 0) {
    const name = collections.pickup_points.name
    const keys = await rt.readStore.keysByField(name, account.id, 'place', places)
    const found = await rt.readStore.getManyByKey<PickupPointDoc>(name, [...keys.values()].flat())
    pickupPoints = [...found.values()].map((d) => d.doc)
  }
  return buildTrackingPage({ order, account, language, pickupPoints })
}

/** The page as an order's customer sees it, with the settings the account holds (or a draft of them): the console's preview. */
export async function trackingPagePreview(rt: Pick<Runtime, 'readStore'>, account: AccountDoc, order: OrderDoc) {
  const language = (order.language_code || account.language_code || 'en') as NotificationLanguage
  const data = await trackingPageDataOf(rt, order, account, language)
  return renderTrackingPage(data, trackingPageOf(account), '/console/settings/tracking-page/preview')
}
