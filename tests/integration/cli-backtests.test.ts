import t, { type Test } from 'tap'
import { call, createAccountWithCli, serviceEnvironment, shiplogCli, spawnServer } from '../support/process.ts'

// The CLI's backtests, each over weeks of parcels the test sends through the API first:
// a file of their own, so they run beside the CLI's other tests, not after them.

/** A served account, and a call to its API with a JSON body. */
async function servedShop(t: Test) {
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env, 'Acme')
  const server = await spawnServer(env)
  t.teardown(() => server.kill('SIGKILL'))
  const send = (path: string, method: string, body: unknown) =>
    call(server.url, account.private_key, path, { method, body: JSON.stringify(body) })
  return { env, account, send }
}
t.test('the CLI: estimation backtest scores the learned dates beside the configured ones', async (t) => {
  const { env, account, send } = await servedShop(t)
  const configured = await send('/v2/carrier_services/colissimo/home', 'PUT', {
    name: 'Colissimo Home',
    transit_days: [{ origin: 'FR', destination: 'FR', days: 2 }],
    cutoff_time: '14:00',
    time_zone: 'Europe/Paris',
    pickup_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
    delivery_days: ['monday', 'tuesday', 'wednesday', 'thursday', 'friday'],
  })
  t.equal(configured.status, 201)
  // Eight Mondays from 7 September 2026, five parcels each, every one delivered on the Thursday: 3 business days.
  const parcels = Array.from({ length: 40 }, (_, i) => {
    const monday = Date.parse('2026-09-07T07:00:00Z') + Math.floor(i / 5) * 7 * 86_400_000
    return { n: `B${i}`, shipped: monday / 1000, delivered: (monday + 3 * 86_400_000) / 1000 }
  })
  const trackers = parcels.map((p) => ({
    order_number: p.n,
    tracking_number: `TN-${p.n}`,
    carrier_code: 'colissimo',
    carrier_service_code: 'home',
    address_country: 'FR',
  }))
  t.equal((await send('/v1/trackers', 'POST', { trackers })).status, 201)
  const events = parcels.flatMap((p) => [
    {
      tracking_number: `TN-${p.n}`,
      event_type_code: 'origin_scan',
      happened_at: p.shipped,
      address: { country_code: 'FR' },
    },
    { tracking_number: `TN-${p.n}`, event_type_code: 'delivered', happened_at: p.delivered },
  ])
  t.equal((await send('/v2/trackers/events', 'POST', { events })).status, 201)

  const run = shiplogCli(['estimation', 'backtest', '--since', '2026-10-05'], env)
  t.equal(run.status, 0, run.stderr)
  const lines = run.stdout.split('\n')
  t.match(lines[0], `account ${account.id}`)
  // The twenty parcels after 5 October: learned from the twenty before them, every one on the day.
  t.match(
    lines.find((l) => l.includes('history')),
    /colissimo\/home\s+history\s+20\s+100\.0 %\s+100\.0 %\s+100\.0 %\s+0\.00/,
  )
  t.match(
    lines.find((l) => l.includes('configured')),
    /configured\s+20\s+0\.0 %\s+100\.0 %\s+100\.0 %\s+1\.00/,
  )
  const refused = shiplogCli(['estimation', 'backtest', '--since', 'October'], env)
  t.not(refused.status, 0)
  t.match(refused.stderr, /expected a date YYYY-MM-DD/)
})

t.test(
  'the CLI: delays backtest says how early late parcels were flagged, and how many flags were false',
  async (t) => {
    const { env, account, send } = await servedShop(t)
    // Twelve Mondays from 3 August 2026, ten parcels each promised the Wednesday: five scanned Tuesday
    // and delivered Wednesday, five held without a scan and delivered Friday.
    const DAY = 86_400
    const parcels = Array.from({ length: 120 }, (_, i) => {
      const monday = Date.parse('2026-08-03T07:00:00Z') / 1000 + Math.floor(i / 10) * 7 * DAY
      return { n: `D${i}`, monday, onTime: i % 2 === 0 }
    })
    const trackers = parcels.map((p) => ({
      order_number: p.n,
      tracking_number: `TN-${p.n}`,
      carrier_code: 'colissimo',
      carrier_service_code: 'home',
      address_country: 'FR',
      expected_delivery_at: new Date((p.monday + 2 * DAY) * 1000).toISOString(),
    }))
    t.equal((await send('/v1/trackers', 'POST', { trackers })).status, 201)
    const events = parcels.flatMap((p) => [
      { tracking_number: `TN-${p.n}`, event_type_code: 'origin_scan', happened_at: p.monday },
      ...(p.onTime
        ? [
            { tracking_number: `TN-${p.n}`, event_type_code: 'transit', happened_at: p.monday + DAY },
            { tracking_number: `TN-${p.n}`, event_type_code: 'delivered', happened_at: p.monday + 2 * DAY },
          ]
        : [{ tracking_number: `TN-${p.n}`, event_type_code: 'delivered', happened_at: p.monday + 4 * DAY }]),
    ])
    t.equal((await send('/v2/trackers/events', 'POST', { events })).status, 201)

    const run = shiplogCli(['delays', 'backtest', '--since', '2026-09-28', '--account', String(account.id)], env)
    t.equal(run.status, 0, run.stderr)
    const lines = run.stdout.split('\n')
    t.match(lines[0], `account ${account.id}`)
    // The last four weeks, learned from the eight before: each held parcel flagged on its Wednesday's morning,
    // a day before its promise passed; no parcel on time flagged.
    t.match(
      lines.find((l) => l.startsWith('colissimo/home')),
      /colissimo\/home\s+40\s+20\s+100\.0 %\s+100\.0 %\s+24 h\s+0\.0 %/,
    )
    t.match(
      lines.find((l) => l.startsWith('all')),
      /all\s+40\s+20\s+100\.0 %/,
    )
    const refused = shiplogCli(['delays', 'backtest'], env)
    t.not(refused.status, 0)
    t.match(refused.stderr, /--since/)
  },
)
