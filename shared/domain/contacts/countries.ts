import countries from 'i18n-iso-countries'

/** English name of an ISO 3166-1 alpha-2 country; null when the code is unknown. */
export function countryName(countryCode: string): string | null {
  // The library also knows alpha-3 and numeric codes; the API takes alpha-2 only.
  if (!/^[a-zA-Z]{2}$/.test(countryCode)) return null
  return countries.getName(countryCode.toUpperCase(), 'en') ?? null
}
