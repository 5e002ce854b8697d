import countries from 'i18n-iso-countries'
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'

/** E.164 form of a phone number read in the address's country; the input as given when it does not parse. */
export function normalizePhone(phone: string, countryCode?: string | null): string {
  const parsed = parsePhoneNumberFromString(phone, (countryCode?.toUpperCase() as CountryCode | undefined) ?? undefined)
  return parsed?.isValid() ? parsed.number : phone
}

/** English name of an ISO 3166-1 alpha-2 country; null when the code is unknown. */
export function countryName(countryCode: string): string | null {
  return countries.getName(countryCode.toUpperCase(), 'en') ?? null
}
