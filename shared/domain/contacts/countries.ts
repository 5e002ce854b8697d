import countries from 'i18n-iso-countries'

/**
 * English names by ISO 3166-1 alpha-2 code, read once: an ingest batch asks
 * for a thousand addresses' countries, and the library's lookup converts and
 * searches the code each time.
 */
const englishNames = new Map(Object.entries(countries.getNames('en')))

/** English name of an ISO 3166-1 alpha-2 country; null when the code is unknown. */
export function countryName(countryCode: string): string | null {
  // ASCII alpha-2 only: the library also knows alpha-3 and numeric codes, and
  // upper-casing would read some other letters as ASCII ones (ı as I).
  if (!/^[a-zA-Z]{2}$/.test(countryCode)) return null
  return englishNames.get(countryCode.toUpperCase()) ?? null
}
