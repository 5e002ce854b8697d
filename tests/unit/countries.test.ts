import t from 'tap'
import { countryName } from '../../shared/domain/contacts/countries.ts'

t.test('a country is named by its ISO 3166-1 alpha-2 code, in either case', async (t) => {
  t.equal(countryName('FR'), 'France')
  t.equal(countryName('fr'), 'France')
  t.equal(countryName('De'), 'Germany')
})

t.test('other codes and look-alike letters name no country', async (t) => {
  for (const code of ['FRA', '250', 'F', '', 'ZZ', 'ıt', 'ſe']) t.equal(countryName(code), null, JSON.stringify(code))
})
