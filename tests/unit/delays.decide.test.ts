import t from 'tap'
import { WORKING_WEEK } from '../../shared/domain/delivery/business-days.ts'
import {
  laneKey,
  learnFrom,
  lessonsOf,
  MIN_LANE_PARCELS,
  type DelayModel,
} from '../../shared/domain/delivery/delay-model.ts'
import { DEFAULT_DELAY_RULES, type LaneLessons, parcelDaysTo } from '../../shared/domain/delivery/delays.ts'
import type { OrderEvent } from '../../shared/domain/events/index.ts'
import type { Delay } from '../../shared/domain/events/order-events.ts'
import {
  type CheckDelay,
  decideDelay,
  decideDelayHandled,
  decideDelayReopened,
  type HandleDelay,
} from '../../shared/domain/orders/delays.ts'
import { decideTrackingEvents } from '../../shared/domain/orders/record-tracking-events.ts'
import { evolveOrderState, type OrderState } from '../../shared/domain/orders/state.ts'
import { evolveOrder } from '../../shared/domain/orders/evolve-document.ts'
import { countingIds, specOf } from '../support/decider.ts'
import { orderHistory, recordedCarrierEvent, TRACKER } from '../support/orders.ts'

/*
 * When a parcel is late, stalled or at risk, given its order's history and
 * the time: each rule of docs/estimation.md on its own. The parcel goes to
 * Paris (Europe/Paris, a working week); 16 November 2026 is a Monday.
 */

const at = (iso: string) => Math.floor(Date.parse(iso) / 1000)
const CREATED = at('2026-11-16T09:00:00Z')
const paris = { country_code: 'FR', city: 'Paris', zip: '75002', id: 1 }
const colissimo = { code: 'colissimo', name: 'Colissimo' }

const order = (tracker: Record<string, unknown> = {}, orderChanges: Record<string, unknown> = {}) =>
  orderHistory(CREATED, {
    order: { email: 'ada@example.com', shipping_address: paris as never, ...orderChanges },
    tracker: { carrier: colissimo, ...tracker },
  })

const command = (now: string, over: Partial<CheckDelay> = {}): CheckDelay => ({
  tracker_id: TRACKER,
  now: at(now),
  rules: DEFAULT_DELAY_RULES,
  calendar: () => WORKING_WEEK,
  ids: countingIds(500),
  ...over,
})

const given = specOf<CheckDelay, OrderState, OrderEvent>({ decide: decideDelay, evolve: evolveOrderState })

const scanned = (iso: string, id = 90): OrderEvent[] => [
  {
    type: 'TrackingEventRecorded',
    data: { tracker_id: TRACKER, event: recordedCarrierEvent(id, `k${id}`, 'transit', at(iso)), at: at(iso) },
  },
  {
    type: 'TrackerStatusChanged',
    data: { tracker_id: TRACKER, from: 'pending', to: 'in_transit', happened_at: at(iso), at: at(iso) },
  },
  {
    type: 'TrackerUpdated',
    data: { tracker_id: TRACKER, changes: { shipped_at: at(iso) }, at: at(iso) },
  },
]
const delayed = (delay: Delay, next_check_at: number | null = null): OrderEvent => ({
  type: 'TrackerDelayChanged',
  data: { tracker_id: TRACKER, delay, next_check_at, at: delay.since },
})
/** Midnight in Paris, in UTC: the start of that day there. */
const parisMidnight = (date: string) => at(`${date}T00:00:00+01:00`)

t.test(
  'a promise whose day has ended in the destination makes the parcel late, and the customer is told',
  async (t) => {
    given(order({ displayable_expected_delivery_date: '2026-11-18' }))
      .when(command('2026-11-21T12:00:00Z'))
      .thenMatch(t, [
        {
          type: 'TrackerDelayChanged',
          data: {
            delay: {
              status: 'late',
              since: parisMidnight('2026-11-19'),
              reason: 'promise_passed',
              expected_delivery_date: null,
            },
            next_check_at: null,
          },
        },
        { type: 'NotificationBuilt', data: { notification: { notification_type: { slug: 'delayed' } } } },
      ])
  },
)

t.test('before the promise ends, nothing is late: only when to look again is recorded', async (t) => {
  given(order({ displayable_expected_delivery_date: '2026-11-18' }))
    .when(command('2026-11-18T22:00:00Z'))
    .thenEvents(t, [
      {
        type: 'TrackerDelayChecked',
        data: { tracker_id: TRACKER, next_check_at: parisMidnight('2026-11-19'), at: at('2026-11-18T22:00:00Z') },
      },
    ])
})

t.test('three business days without a scan make a parcel stalled, from its last scan or its creation', async (t) => {
  // Scanned Monday: Tuesday, Wednesday and Thursday pass without one; stalled from Friday's start.
  given([...order(), ...scanned('2026-11-16T10:00:00Z')])
    .when(command('2026-11-20T08:00:00Z'))
    .thenMatch(t, [
      {
        type: 'TrackerDelayChanged',
        data: { delay: { status: 'stalled', since: parisMidnight('2026-11-20'), reason: 'no_scan' } },
      },
      { type: 'NotificationBuilt' },
    ])
  given(order())
    .when(command('2026-11-20T08:00:00Z'))
    .thenMatch(t, [{ data: { delay: { status: 'stalled', reason: 'no_first_scan' } } }, { type: 'NotificationBuilt' }])
  // Scanned Thursday: the weekend does not count, so Friday, Monday and Tuesday pass first.
  given([...order(), ...scanned('2026-11-19T10:00:00Z')])
    .when(command('2026-11-24T12:00:00Z'))
    .thenMatch(t, [{ type: 'TrackerDelayChecked', data: { next_check_at: parisMidnight('2026-11-25') } }])
})

t.test("the account's rules set the stalled days; a lane's learned quiet days replace them", async (t) => {
  const rules = { stalled_after_business_days: 1, notify_at_risk: false }
  given([...order(), ...scanned('2026-11-16T10:00:00Z')])
    .when(command('2026-11-18T08:00:00Z', { rules }))
    .thenMatch(t, [{ data: { delay: { status: 'stalled', since: parisMidnight('2026-11-18') } } }, {}])
  const lessons: LaneLessons = { quiet_days: 4, outlook: () => undefined }
  given([...order(), ...scanned('2026-11-16T10:00:00Z')])
    .when(command('2026-11-20T08:00:00Z', { lessons: () => lessons }))
    .thenMatch(t, [{ type: 'TrackerDelayChecked', data: { next_check_at: parisMidnight('2026-11-24') } }])
})

t.test('a shipped parcel standing where most of its lane arrived late is at risk, with a revised date', async (t) => {
  // The lane: parcels one business day from their promise and a day without a scan mostly arrived late.
  const lessons: LaneLessons = {
    quiet_days: null,
    outlook: (s) =>
      s.days_to_promise <= 1 && s.quiet_days >= 1
        ? { late_share: 0.8, remaining_days: 3 }
        : { late_share: 0.1, remaining_days: 1 },
  }
  const shipped = [...order({ displayable_expected_delivery_date: '2026-11-19' }), ...scanned('2026-11-16T10:00:00Z')]
  given(shipped)
    .when(command('2026-11-17T08:00:00Z', { lessons: () => lessons }))
    .thenMatch(t, [{ type: 'TrackerDelayChecked', data: { next_check_at: parisMidnight('2026-11-18') } }])
  given(shipped)
    .when(command('2026-11-18T08:00:00Z', { lessons: () => lessons }))
    .thenEvents(t, [
      {
        type: 'TrackerDelayChanged',
        data: {
          tracker_id: TRACKER,
          delay: {
            status: 'at_risk',
            since: parisMidnight('2026-11-18'),
            reason: 'behind_lane',
            expected_delivery_date: '2026-11-23',
          },
          next_check_at: parisMidnight('2026-11-20'),
          at: at('2026-11-18T08:00:00Z'),
        },
      },
    ])
  t.test('the customer hears of it only where the rules ask, and once a delay whatever it becomes', async (t) => {
    const rules = { ...DEFAULT_DELAY_RULES, notify_at_risk: true }
    given(shipped)
      .when(command('2026-11-18T08:00:00Z', { lessons: () => lessons, rules }))
      .thenMatch(t, [{ type: 'TrackerDelayChanged' }, { type: 'NotificationBuilt' }])
    const told = decideDelay(
      command('2026-11-18T08:00:00Z', { lessons: () => lessons, rules }),
      shipped.reduce(evolveOrderState, undefined as never),
    )
    given([...shipped, ...told])
      .when(command('2026-11-20T08:00:00Z', { lessons: () => lessons, rules }))
      .thenMatch(t, [{ type: 'TrackerDelayChanged', data: { delay: { status: 'late' } } }])
  })
  t.test('without lessons on its lane, no parcel is at risk', async (t) => {
    given(shipped)
      .when(command('2026-11-18T08:00:00Z'))
      .thenMatch(t, [{ type: 'TrackerDelayChecked' }])
  })
})

t.test('a muted or canceled order gets its delay, never the message', async (t) => {
  given(order({ displayable_expected_delivery_date: '2026-11-18' }, { mute_notifications: true }))
    .when(command('2026-11-21T12:00:00Z'))
    .thenMatch(t, [{ type: 'TrackerDelayChanged', data: { delay: { status: 'late' } } }])
  given(order({ displayable_expected_delivery_date: '2026-11-18', mute_notifications: true }))
    .when(command('2026-11-21T12:00:00Z'))
    .thenMatch(t, [{ type: 'TrackerDelayChanged' }])
})

t.test('a delay unchanged records nothing', async (t) => {
  const late = { status: 'late', since: parisMidnight('2026-11-19'), reason: 'promise_passed' } as const
  given([
    ...order({ displayable_expected_delivery_date: '2026-11-18' }),
    delayed({ ...late, expected_delivery_date: null }),
  ])
    .when(command('2026-11-22T12:00:00Z'))
    .thenEvents(t, [])
})

t.test('a new scan ends a stall and delivery ends any delay, in the command that records them', async (t) => {
  const stall = { status: 'stalled', since: parisMidnight('2026-11-20'), reason: 'no_scan' } as const
  const history = [...order(), ...scanned('2026-11-16T10:00:00Z'), delayed({ ...stall, expected_delivery_date: null })]
  const state = history.reduce(evolveOrderState, undefined as never)
  const record = (code: 'transit' | 'delivered', iso: string) =>
    decideTrackingEvents(
      {
        events: [{ tracking_number: 'TN', event_type_code: code, happened_at: at(iso) }],
        eventIds: [700],
        now: at(iso),
        ids: countingIds(800),
      },
      state,
    ).events
  const moved = record('transit', '2026-11-21T09:00:00Z')
  t.match(
    moved.find((e) => e.type === 'TrackerDelayChanged'),
    { data: { delay: null, next_check_at: at('2026-11-22T09:00:00Z') } },
    'cleared, looked at again a day after the scan',
  )
  t.match(
    record('delivered', '2026-11-21T09:00:00Z').find((e) => e.type === 'TrackerDelayChanged'),
    { data: { delay: null, next_check_at: null } },
    'cleared for good',
  )
  const late = { status: 'late', since: parisMidnight('2026-11-19'), reason: 'promise_passed' } as const
  const lateState = [...order(), delayed({ ...late, expected_delivery_date: null })].reduce(
    evolveOrderState,
    undefined as never,
  )
  const lateScan = decideTrackingEvents(
    {
      events: [{ tracking_number: 'TN', event_type_code: 'transit', happened_at: at('2026-11-21T09:00:00Z') }],
      eventIds: [700],
      now: at('2026-11-21T09:00:00Z'),
      ids: countingIds(800),
    },
    lateState,
  ).events
  t.notOk(
    lateScan.some((e) => e.type === 'TrackerDelayChanged'),
    'a scan does not end lateness',
  )
})

t.test("a lane's model speaks once it has enough delivered parcels, and tells late from on time", async (t) => {
  const days = parcelDaysTo({ country: 'FR', state: null }, WORKING_WEEK)
  const lane = laneKey('colissimo', 'home', 'FR')
  const model: DelayModel = new Map()
  // Shipped on a Monday with a Wednesday promise: those scanned again on Tuesday arrive Wednesday, the rest Friday.
  const learn = (n: number) => {
    for (let i = 0; i < n; i++) {
      const monday = at('2026-11-16T09:00:00Z') + 7 * 86_400 * (i % 4)
      const onTime = i % 2 === 0
      const scans = onTime ? [monday, monday + 86_400, monday + 2 * 86_400] : [monday, monday + 4 * 86_400]
      learnFrom(model, {
        lane,
        shipped_at: monday,
        delivered_at: scans.at(-1)!,
        promise: new Date((monday + 2 * 86_400) * 1000).toISOString().slice(0, 10),
        scans,
        days,
      })
    }
  }
  learn(MIN_LANE_PARCELS - 1)
  t.equal(lessonsOf(model, lane), undefined, 'too few parcels: nothing learned')
  learn(40)
  const lessons = lessonsOf(model, lane)!
  // On the promised day's morning: those scanned the day before arrive that day; the others later.
  t.match(lessons.outlook({ days_to_promise: 0, quiet_days: 1 }), { late_share: 1 }, 'no scan for a day: late')
  t.match(lessons.outlook({ days_to_promise: 0, quiet_days: 0 }), { late_share: 0 }, 'scanned yesterday: on time')
  const dayBefore = lessons.outlook({ days_to_promise: 1, quiet_days: 0 })!.late_share
  t.ok(dayBefore > 0.4 && dayBefore < 0.6, `the day before, all alike: half of them late (${dayBefore})`)
  t.equal(lessons.quiet_days, null, 'too few gaps to replace the rules')
  t.equal(lessonsOf(model, laneKey('colissimo', 'home', 'BE')), undefined, 'another lane has learned nothing')
})

const givenHandling = specOf<HandleDelay, OrderState, OrderEvent>({
  decide: decideDelayHandled,
  evolve: evolveOrderState,
})
const lateSince = parisMidnight('2026-11-19')
const lateOrder = () => [
  ...order({ displayable_expected_delivery_date: '2026-11-18' }),
  delayed({ status: 'late', since: lateSince, reason: 'promise_passed', expected_delivery_date: null }),
]
const handling = (over: Partial<HandleDelay> = {}): HandleDelay => ({
  tracker_id: TRACKER,
  by: 'sam@shop.example',
  at: at('2026-11-21T12:00:00Z'),
  ...over,
})

t.test('a delay marked handled keeps what was done about it and the note, trimmed', async (t) => {
  givenHandling(lateOrder())
    .when(handling({ outcome: 'contacted', note: '  Called: parcel at the neighbour  ' }))
    .thenEvents(t, [
      {
        type: 'TrackerDelayHandled',
        data: { ...handling(), outcome: 'contacted', note: 'Called: parcel at the neighbour' },
      },
    ])
})

t.test('no outcome and a blank note record neither', async (t) => {
  givenHandling(lateOrder())
    .when(handling({ note: '   ' }))
    .thenEvents(t, [{ type: 'TrackerDelayHandled', data: handling() }])
})

t.test('a note longer than 500 characters is refused, naming the field', async (t) => {
  givenHandling(lateOrder())
    .when(handling({ note: 'x'.repeat(501) }))
    .thenThrows(t, { code: 'SHIPLOG_ERR_VALIDATION', message: /note must be at most 500 characters/ })
})

t.test('a delay handled once is not handled again; a parcel without one has none to handle', async (t) => {
  givenHandling([...lateOrder(), { type: 'TrackerDelayHandled', data: handling() }])
    .when(handling({ outcome: 'refunded' }))
    .thenEvents(t, [])
  givenHandling(order()).when(handling()).thenThrows(t, { code: 'SHIPLOG_ERR_CONFLICT' })
})

t.test("the order's document shows who handled the delay, how, and the note; a new delay clears it", async (t) => {
  const handled: OrderEvent = { type: 'TrackerDelayHandled', data: handling({ outcome: 'claim', note: 'Claim 42' }) }
  const trackerOf = (events: OrderEvent[]) =>
    events
      .reduce(evolveOrder, undefined)!
      .fulfillments.flatMap((f) => f.trackers)
      .find((tr) => tr.id === TRACKER)!
  t.same(trackerOf([...lateOrder(), handled]).delay_handled, {
    by: 'sam@shop.example',
    at: at('2026-11-21T12:00:00Z'),
    outcome: 'claim',
    note: 'Claim 42',
  })
  const stalled = delayed({
    status: 'stalled',
    since: at('2026-11-25T00:00:00Z'),
    reason: 'no_scan',
    expected_delivery_date: null,
  })
  t.equal(trackerOf([...lateOrder(), handled, stalled]).delay_handled, null)
  t.equal(trackerOf(lateOrder()).delay_reopened, false, 'a first delay is not reopened')
  t.equal(trackerOf([...lateOrder(), handled, stalled]).delay_reopened, true, 'a new delay after one handled is')
  t.equal(trackerOf([...lateOrder(), handled, stalled, handled]).delay_reopened, false, 'until handled again')
  const ended: OrderEvent = {
    type: 'TrackerDelayChanged',
    data: { tracker_id: TRACKER, delay: null, next_check_at: null, at: at('2026-11-26T00:00:00Z') },
  }
  t.equal(trackerOf([...lateOrder(), handled, stalled, ended]).delay_reopened, false, 'a delay ended is not open')
})

const givenReopening = specOf<{ tracker_id: number; by: string; at: number }, OrderState, OrderEvent>({
  decide: decideDelayReopened,
  evolve: evolveOrderState,
})

t.test('a handled delay taken back is open again, and may be handled again', async (t) => {
  const handled: OrderEvent = { type: 'TrackerDelayHandled', data: handling({ outcome: 'contacted' }) }
  const undo = { tracker_id: TRACKER, by: 'sam@shop.example', at: at('2026-11-21T12:05:00Z') }
  givenReopening([...lateOrder(), handled])
    .when(undo)
    .thenEvents(t, [{ type: 'TrackerDelayReopened', data: undo }])
  givenHandling([...lateOrder(), handled, { type: 'TrackerDelayReopened', data: undo }])
    .when(handling({ outcome: 'refunded' }))
    .thenEvents(t, [{ type: 'TrackerDelayHandled', data: handling({ outcome: 'refunded' }) }])
})

t.test('a delay not handled has nothing to take back; an unknown tracker is not found', async (t) => {
  const undo = { tracker_id: TRACKER, by: 'sam@shop.example', at: at('2026-11-21T12:05:00Z') }
  givenReopening(lateOrder()).when(undo).thenEvents(t, [])
  givenReopening(lateOrder())
    .when({ ...undo, tracker_id: 999 })
    .thenThrows(t, { code: 'SHIPLOG_ERR_NOT_FOUND' })
})

t.test("a delay taken back leaves nothing of its handling on the order's document", async (t) => {
  const handled: OrderEvent = { type: 'TrackerDelayHandled', data: handling({ note: 'Called' }) }
  const reopened: OrderEvent = {
    type: 'TrackerDelayReopened',
    data: { tracker_id: TRACKER, by: 'sam@shop.example', at: at('2026-11-21T12:05:00Z') },
  }
  const tracker = [...lateOrder(), handled, reopened]
    .reduce(evolveOrder, undefined)!
    .fulfillments.flatMap((f) => f.trackers)
    .find((tr) => tr.id === TRACKER)!
  t.equal(tracker.delay_handled, null)
  t.equal(tracker.delay_reopened, true, 'and it reads Reopened')
})
