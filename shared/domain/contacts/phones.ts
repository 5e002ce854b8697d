import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'
import { memoize } from '../memo.ts'

// A module of its own: the phone-number metadata takes a tenth of a second to
// load, and only deciders need it, not the projectors' threads nor the schemas.

/** Whether a phone number is one a text message can be sent to: a valid E.164 number. */
export const isDialable = memoize((phone: string) => {
  if (!/^\+[1-9]\d{6,14}$/.test(phone)) return false
  return parsePhoneNumberFromString(phone)?.isValid() ?? false
})

const e164 = memoize((key: string) => {
  const [country, phone] = [key.slice(0, key.indexOf('|')), key.slice(key.indexOf('|') + 1)]
  const parsed = parsePhoneNumberFromString(phone, (country.toUpperCase() as CountryCode) || undefined)
  if (!parsed?.isValid()) return phone
  // A new order's notification asks next whether its number is dialable: this parse has told.
  isDialable.remember(parsed.number, true)
  return parsed.number
})

/** E.164 form of a phone number read in the address's country; the input as given when it does not parse. */
export const normalizePhone = (phone: string, countryCode?: string | null): string =>
  e164(`${countryCode ?? ''}|${phone}`)
