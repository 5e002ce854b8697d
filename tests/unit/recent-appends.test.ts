import t from 'tap'
import { RecentAppends } from '../../shared/infra/event-store/recent-appends.ts'

/* The rows an append hands to the readers of its process: served only where they are exactly the log's. */

/** A row as [first position, last position]: a row of several events spans several. */
type Row = [number, number]
const recent = (maxEvents = 100) =>
  new RecentAppends<Row>(([first, last]) => ({ first: BigInt(first), last: BigInt(last) }), maxEvents)

t.test('given rows that follow one another, a reader keeping up reads them here, from inside a row too', async (t) => {
  const kept = recent()
  kept.add([
    [1, 1],
    [2, 5],
  ])
  kept.add([[6, 6]])
  t.same(kept.after(0n), [
    [1, 1],
    [2, 5],
    [6, 6],
  ])
  t.same(kept.after(3n), [
    [2, 5],
    [6, 6],
  ])
  t.same(kept.after(5n), [[6, 6]])
  t.equal(kept.after(6n), undefined, 'past the last row kept: the log may hold more, from another process')
  t.equal(kept.after(0n), undefined, 'rows read past are gone: a reader going back reads the log')
})

t.test('given a gap (another process wrote between), only the rows after it are kept', async (t) => {
  const kept = recent()
  kept.add([[1, 2]])
  kept.add([[5, 5]])
  t.equal(kept.after(2n), undefined, 'positions 3 and 4 are in the log alone')
  t.same(kept.after(4n), [[5, 5]])
})

t.test('given more events than it keeps, the oldest rows go and a reader behind them reads the log', async (t) => {
  const kept = recent(4)
  kept.add([
    [1, 2],
    [3, 4],
    [5, 6],
  ])
  t.equal(kept.after(1n), undefined)
  t.same(kept.after(2n), [
    [3, 4],
    [5, 6],
  ])
})

t.test('given nothing handed yet, every read is the log', async (t) => {
  t.equal(recent().after(0n), undefined)
})
