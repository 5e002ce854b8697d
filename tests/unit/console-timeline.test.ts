import t from 'tap'
import { timelineOf } from '../../console/timeline.ts'

/* A parcel's timeline on the order page: its events newest first, its silences, and what "Show all" hides. */

const DAY = 86_400
const NOW = 100 * DAY
const scan = (daysAgo: number) => ({ happened_at: NOW - daysAgo * DAY, daysAgo })
const described = (rows: ReturnType<typeof timelineOf<ReturnType<typeof scan>>>['shown']) =>
  rows.map((row) => ('event' in row ? row.event.daysAgo : `quiet ${row.quiet_days}`))

t.test('a silence longer than the threshold is a row; one of exactly the threshold is not', async (t) => {
  // Given scans 10, 6 and 3 days ago (gaps of 4 and 3 days), and a threshold of 3 days
  const events = [scan(10), scan(3), scan(6)]
  // When the timeline is made for an open parcel
  const timeline = timelineOf(events, NOW, 3, false)
  // Then the newest comes first, and only the 4-day gap gets a row (the 3 days since the last scan do not)
  t.same(described(timeline.shown), [3, 6, 'quiet 4', 10])
  t.same(timeline.more, [])
  t.equal(timeline.total, 3)
})

t.test('an open parcel quiet since its last scan says so first; an ended one does not', async (t) => {
  // Given a last scan 5 days ago and a threshold of 3
  const events = [scan(6), scan(5)]
  // When the parcel is still on its way, then when it was delivered
  const open = timelineOf(events, NOW, 3, false)
  const ended = timelineOf(events, NOW, 3, true)
  // Then only the open one starts with the silence up to now
  t.same(described(open.shown), ['quiet 5', 5, 6])
  t.same(described(ended.shown), [5, 6])
})

t.test('five events are shown, the rest and the silences among them folded away', async (t) => {
  // Given seven scans, with a week's silence between the sixth and seventh newest
  const events = [1, 2, 3, 4, 5, 6, 13].map(scan)
  // When the timeline is made
  const timeline = timelineOf(events, NOW, 3, false)
  // Then the five newest are shown, and the sixth, the silence and the seventh wait behind "Show all 7"
  t.same(described(timeline.shown), [1, 2, 3, 4, 5])
  t.same(described(timeline.more), [6, 'quiet 7', 13])
  t.equal(timeline.total, 7)
})

t.test('no events: nothing shown, nothing folded', async (t) => {
  t.same(timelineOf([], NOW, 3, false), { shown: [], more: [], total: 0 })
})
