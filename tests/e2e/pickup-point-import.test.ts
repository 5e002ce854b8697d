import { readFileSync } from 'node:fs'
import t from 'tap'
import { pickupPointColumns } from '../../shared/domain/pickup-points/row.ts'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import { waitForJob } from '../support/jobs.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

/** Uploaded files still kept, as the server's blob store lists them (files under DATA_DIR, or PostgreSQL's). */
const uploads = async (server: TestServer) => (await server.runtime.blobs.list()).length

/** The uploaded files left after a job's end: the worker removes a file just after recording the end, so it is awaited (5 s at most). */
const uploadsLeft = async (server: TestServer) => {
  for (let i = 0; i < 250 && (await uploads(server)) > 0; i++) await new Promise((r) => setTimeout(r, 20))
  return uploads(server)
}

t.test('columns in any order, a BOM, and gps as numbers', async (t) => {
  const server = await startTestServer(t)
  const columns = [...pickupPointColumns].reverse()
  const csv =
    '\uFEFF' +
    pickupPointCsv(
      [point('B-1', { gps_lat: '-33.5', gps_long: '151.25', friday_pm_opening: '13:30', friday_pm_closing: '17:45' })],
      columns,
    )
  const upload = await server.upload('/api/v2/pickup_points/import', csvForm(csv))
  const { job } = await waitForJob(server, upload.body.id)
  t.match(job.payload, { method: 'POST', url: '/api/v2/pickup_points/import' }, 'the path as called')
  t.same(
    job.results.map((r: { status: number }) => r.status),
    [201],
  )
  const [p] = (await server.request('GET', '/v2/pickup_points')).body.data
  t.match(p, {
    gps_lat: -33.5,
    gps_long: 151.25,
    opening_hours: { friday: { pm_opening: '13:30', pm_closing: '17:45' } },
  })
  t.equal(await uploadsLeft(server), 0, 'the uploaded file is removed once its job has completed')
})

t.test('lines are the file’s own: a quoted line break and a blank line count', async (t) => {
  const server = await startTestServer(t)
  const [header, first, second, third] = pickupPointCsv([
    point('L-1', { name: '"Relais\nColis"' }),
    point('L-2', { city: '' }),
    point('L-3', { gps_long: 'east' }),
  ]).split(/\n(?=L-)/)
  // Line 1 the header, lines 2–3 the first row, line 4 blank, line 5 the second row, line 6 the third.
  const csv = `${header}\n${first}\n\n${second}\n${third}`
  const { job } = await waitForJob(server, (await server.upload('/v2/pickup_points/import', csvForm(csv))).body.id)
  t.same(
    job.results.map((r: { status: number; body: { line: number } }) => [r.status, r.body.line]),
    [
      [201, 2],
      [422, 5],
      [422, 6],
    ],
  )
  const [relais] = (await server.request('GET', '/v2/pickup_points')).body.data
  t.equal(relais.name, 'Relais\nColis', 'the line break is kept in the value')
})

t.test('a broken file ends failed, with a message', async (t) => {
  const server = await startTestServer(t)
  const noHeader = await server.upload('/v2/pickup_points/import', csvForm('merchant_id;name\nP-1;Shop\n'))
  const failed = (await waitForJob(server, noHeader.body.id)).job
  t.match(failed, {
    status: 'failed',
    completed_at: null,
    failed_at: Number,
    error: { message: /lacks the required columns: address1, city, postal_code, country_code/ },
  })
  t.notOk('results' in failed)
  const broken = await server.upload(
    '/v2/pickup_points/import',
    csvForm(`${pickupPointCsv([point('P-1')])}P-2;"unclosed;x\n`),
  )
  t.match((await waitForJob(server, broken.body.id)).job, { status: 'failed', error: { message: /not a valid CSV/ } })
  t.same(
    (await server.request('GET', '/v2/pickup_points')).body.data.map((p: { merchant_id: string }) => p.merchant_id),
    [],
    'nothing of a broken file is imported',
  )
  t.equal(await uploadsLeft(server), 0, 'the uploaded files are removed once their jobs have failed')
})

t.test('jobs of another account, or unknown, are 404', async (t) => {
  const server = await startTestServer(t)
  const upload = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('Z-1')])))
  await waitForJob(server, upload.body.id)
  const other = await server.newAccount()
  const theirs = await server.request('GET', `/v2/jobs/${upload.body.id}`, { key: other.private_key })
  t.equal(theirs.status, 404)
  t.same(theirs.body, { errors: { details: 'Job not found' } })
  t.equal((await server.request('GET', '/v2/jobs/12345')).status, 404)
  t.equal((await server.request('GET', '/v2/jobs/abc')).status, 400)
  t.same((await server.request('GET', '/v2/pickup_points', { key: other.private_key })).body.data, [])
})

t.test('the sample file of the README imports cleanly; a comma-separated file is told its separator', async (t) => {
  const server = await startTestServer(t)
  const sample = readFileSync('examples/pickup-points.csv', 'utf8')
  const upload = await server.upload('/v2/pickup_points/import', csvForm(sample, 'pickup-points.csv'))
  const { job } = await waitForJob(server, upload.body.id)
  t.equal(job.status, 'completed')
  t.same(
    job.results.map((r: { status: number }) => r.status),
    sample
      .trim()
      .split('\n')
      .slice(1)
      .map(() => 201),
  )
  const commas = await server.upload('/v2/pickup_points/import', csvForm(sample.replaceAll(';', ',')))
  t.match((await waitForJob(server, commas.body.id)).job, {
    status: 'failed',
    error: { message: /separated by semicolons \(;\), not commas/ },
  })
})
