import countries from 'i18n-iso-countries'
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'
import { memoize } from '../memo.ts'

const e164 = memoize((key: string) => {
  const [country, phone] = [key.slice(0, key.indexOf('|')), key.slice(key.indexOf('|') + 1)]
  const parsed = parsePhoneNumberFromString(phone, (country.toUpperCase() as CountryCode) || undefined)
  return parsed?.isValid() ? parsed.number : phone
})

/** E.164 form of a phone number read in the address's country; the input as given when it does not parse. */
export const normalizePhone = (phone: string, countryCode?: string | null): string =>
  e164(`${countryCode ?? ''}|${phone}`)

/** English name of an ISO 3166-1 alpha-2 country; null when the code is unknown. */
export function countryName(countryCode: string): string | null {
  // The library also knows alpha-3 and numeric codes; the API takes alpha-2 only.
  if (!/^[a-zA-Z]{2}$/.test(countryCode)) return null
  return countries.getName(countryCode.toUpperCase(), 'en') ?? null
}
