import type { NotificationSlug } from '../../shared/domain/notifications/types.ts'
import { brandColorsOf, trackingPageOf } from '../../shared/domain/tracking-page/settings.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'
import { renderEmail } from '../emails/render.ts'
import { renderSms } from '../sms/render.ts'

/** The made-up order of a sample message: what a merchant reads before any customer was written to. */
const SAMPLE = {
  first_name: 'Camille',
  order_number: '1001',
  carrier: 'DHL',
  tracking_number: '00340434161094042557',
}

/**
 * A type's e-mail and SMS in a language, as a customer of the account would
 * get them for a sample order: the same templates and brand as the real
 * sends. `today` (YYYY-MM-DD) dates the sample's expected delivery two days on.
 */
export function sampleMessages(
  account: Pick<AccountDoc, 'name' | 'tracking_page'>,
  slug: NotificationSlug,
  language: string,
  trackingLink: string | null,
  today: string,
) {
  const settings = trackingPageOf(account)
  const colors = brandColorsOf(settings)
  const brand = settings.brand_name ?? account.name
  const expected = new Date(Date.parse(`${today}T00:00:00Z`) + 2 * 86_400_000).toISOString().slice(0, 10)
  return {
    email: renderEmail({
      slug,
      language,
      ...SAMPLE,
      tracking_link: trackingLink,
      expected_delivery_date: expected,
      brand: { name: brand, logo_url: settings.logo_url, color: colors.brand, text_color: colors.onBrand },
    }),
    sms: renderSms({ slug, language, brand, order_number: SAMPLE.order_number, link: trackingLink }),
  }
}
