import t from 'tap'
import { localDayOf, localMidnight } from '../../shared/domain/delivery/calendar.ts'
import { timeZone } from '../../shared/domain/fields.ts'
import { delayFiltersOf, keptBy, type Parcel } from '../../console/parcels.ts'

/* The account's days: where they begin in its time zone, whatever the season. */

const at = (iso: string) => Date.parse(iso) / 1000

t.test('an instant late in the evening in UTC is the next day further east', async (t) => {
  // Given 23:30 UTC on 1 March
  const instant = at('2026-03-01T23:30:00Z')
  // When its day is read in UTC, Paris and Los Angeles
  // Then each names the day it was there
  t.equal(localDayOf('UTC', instant), '2026-03-01')
  t.equal(localDayOf('Europe/Paris', instant), '2026-03-02')
  t.equal(localDayOf('America/Los_Angeles', instant), '2026-03-01')
})

t.test('a day begins at its local midnight, in winter and in summer time', async (t) => {
  // Given Paris, one hour ahead of UTC in winter and two in summer
  // When the midnights of a winter and a summer day are asked for
  // Then they are 23:00 and 22:00 UTC the day before
  t.equal(localMidnight('Europe/Paris', '2026-01-15'), at('2026-01-14T23:00:00Z'))
  t.equal(localMidnight('Europe/Paris', '2026-07-15'), at('2026-07-14T22:00:00Z'))
  // And the day the clocks go forward is 23 hours long
  t.equal(localMidnight('Europe/Paris', '2026-03-30') - localMidnight('Europe/Paris', '2026-03-29'), 23 * 3600)
})

t.test('a time zone is read as its IANA name, whatever its case; anything else is refused', async (t) => {
  t.equal(timeZone.parse('europe/paris'), 'Europe/Paris')
  t.equal(timeZone.parse('UTC'), 'UTC')
  const refused = timeZone.safeParse('Europe/Atlantis')
  t.notOk(refused.success)
  t.equal(refused.error?.issues[0]?.message, 'must be an IANA time zone such as Europe/Paris')
})

t.test('the delays flagged since a day are those flagged on or after it in the account’s zone', async (t) => {
  // Given a parcel flagged at 23:30 UTC on 1 March
  const parcel = {
    order: { fulfillments: [] },
    tracker: { delay: { reason: 'promise_passed', since: at('2026-03-01T23:30:00Z') } },
  } as unknown as Parcel
  const filters = delayFiltersOf({ since: '2026-03-02' })
  // When the list asks for those flagged since 2 March
  // Then an account in Paris sees it (it was 00:30 there), one in UTC does not
  t.ok(keptBy(filters, parcel, 'Europe/Paris'))
  t.notOk(keptBy(filters, parcel, 'UTC'))
})
