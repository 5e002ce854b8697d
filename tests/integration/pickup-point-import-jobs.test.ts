import { Readable } from 'node:stream'
import t from 'tap'
import { removeLeftUploads, runJob } from '../../jobs/run.ts'
import { toNewEvents } from '../../commands/execute.ts'
import { eventSchemas, type EventType } from '../../shared/domain/events/index.ts'
import { type JobEvent, jobStream, uploadKey } from '../../shared/domain/jobs/job.ts'
import { createIdGenerator } from '../../shared/infra/id-generator.ts'
import { asDomainEvents } from '../../shared/infra/event-store/recorded.ts'
import { deleteAccount } from '../../commands/accounts/change-account.ts'
import { csvForm, pickupPointCsv, point } from '../support/csv.ts'
import { waitForJob } from '../support/jobs.ts'
import { freePort } from '../support/process.ts'
import { metric, until } from '../support/progress.ts'
import { redisOn } from '../support/redis.ts'
import { startTestServer, type TestServer } from '../support/server.ts'

t.test('a mixed file gives exactly the expected results, and a second import updates', async (t) => {
  const server = await startTestServer(t)
  const csv = pickupPointCsv([
    point('P-1', {
      gps_lat: '48.8698',
      gps_long: '2.3316',
      monday_am_opening: '09:00',
      monday_am_closing: '12:00',
      monday_pm_opening: '14:00',
      monday_pm_closing: '19:00',
    }),
    point('P-2', { name: '"Relais; Colis"', address2: '', state_code: '' }),
    point('P-3', { gps_lat: '95', tuesday_pm_opening: '18:00', tuesday_pm_closing: '08:00', country_code: 'ZZ' }),
    point('P-1', { name: 'Shop P-1 renamed' }),
    { name: 'No id' },
    point('P-4', { wednesday_am_opening: '9h' }),
  ])
  const upload = await server.upload('/v2/pickup_points/import', csvForm(csv))
  t.equal(upload.status, 202)
  t.match(upload.body, { object: 'job', id: Number, status: 'queued', processed_at: null, completed_at: null })
  t.match(upload.body.payload, {
    method: 'POST',
    url: '/v2/pickup_points/import',
    body: { file: { filename: 'points.csv' } },
  })
  t.equal(upload.headers.get('location'), `/v2/jobs/${upload.body.id}`)

  const { job } = await waitForJob(server, upload.body.id)
  t.equal(job.status, 'completed')
  t.type(job.processed_at, 'number')
  t.type(job.completed_at, 'number')
  t.same(
    job.results.map((r: { status: number }) => r.status),
    [201, 201, 422, 200, 422, 422],
  )
  const [p1, p2, bad, p1again, noId, badTime] = job.results
  t.same(p1.body, { id: p1.body.id, merchant_id: 'P-1', line: 2 })
  t.equal(p1again.body.id, p1.body.id, 'a duplicate merchant id updates the same point')
  t.equal(p2.body.line, 3)
  t.same(bad.body, {
    merchant_id: 'P-3',
    line: 4,
    errors: {
      details:
        'Invalid pickup point: country_code must be a 2-letter ISO 3166-1 country code; gps_lat must be a decimal number from -90 to 90; tuesday_pm_closing must be after tuesday_pm_opening',
      country_code: 'must be a 2-letter ISO 3166-1 country code',
      gps_lat: 'must be a decimal number from -90 to 90',
      tuesday_pm_closing: 'must be after tuesday_pm_opening',
    },
  })
  t.match(noId.body, { merchant_id: null, line: 6, errors: { merchant_id: 'is required', address1: 'is required' } })
  t.match(badTime.body, { merchant_id: 'P-4', errors: { wednesday_am_opening: 'must be a time HH:MM' } })

  const list = await server.request('GET', '/v2/pickup_points', { headers: { 'x-shiplog-position': '0' } })
  t.same(
    list.body.data.map((p: { merchant_id: string }) => p.merchant_id),
    ['P-2', 'P-1'],
  )
  const [relais, shop] = list.body.data
  t.match(relais, { object: 'pickup_point', name: 'Relais; Colis', address2: null, state_code: null, gps_lat: null })
  t.match(shop, {
    object: 'pickup_point',
    name: 'Shop P-1 renamed',
    gps_lat: null,
    opening_hours: {
      monday: { am_opening: null },
      sunday: { am_opening: null, am_closing: null, pm_opening: null, pm_closing: null },
    },
  })

  const second = await server.upload(
    '/v2/pickup_points/import',
    csvForm(pickupPointCsv([point('P-2', { city: 'Lyon' }), point('P-9')])),
  )
  const done = await waitForJob(server, second.body.id)
  t.same(
    done.job.results.map((r: { status: number }) => r.status),
    [200, 201],
  )
  t.equal(done.job.results[0].body.id, p2.body.id)
  const lyon = await server.request('GET', '/v2/pickup_points?merchant_id=P-2')
  t.equal(lyon.body.data[0].city, 'Lyon')
  t.equal((await server.request('GET', '/api/v2/pickup_points')).body.data.length, 3)

  // The import appends its events without parsing them again (toNewEvents' `prechecked`): each must still match its schema.
  const events = await server.runtime.eventStore.readAll({ limit: 1000 })
  const imported = events.filter((e) => e.type === 'PickupPointImported' || e.type === 'JobItemsProcessed')
  t.equal(
    imported.length,
    5 + 2,
    'three points written by the first import (P-1 twice), two by the second, and a chunk of results each',
  )
  t.same(
    imported.filter((e) => !eventSchemas[e.type as EventType].safeParse(e.data).success).map((e) => e.position),
    [],
    'every event the import wrote matches its schema',
  )
})

t.test('results of chunks projected before their pre-serialised view existed are still answered', async (t) => {
  const server = await startTestServer(t)
  const upload = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('V-1'), point('V-2')])))
  const { job } = await waitForJob(server, upload.body.id)
  // The chunk as an earlier version stored it: the document alone, no view.
  const rs = server.runtime.readStore
  const [chunk] = (
    await rs.find<{ id: number; job_id: number; results: unknown[] }>('job_results', {
      accountId: server.accountId,
      where: [{ field: 'job_id', op: 'eq', value: job.id }],
      limit: 10,
    })
  ).docs
  await rs.commit(
    ['job_results_test'],
    [
      {
        collection: 'job_results',
        key: chunk!.key,
        accountId: server.accountId,
        id: chunk!.id,
        revision: chunk!.revision + 1,
        doc: chunk!.doc,
        fields: { job_id: job.id },
      },
    ],
    1n,
  )
  t.same((await server.request('GET', `/v2/jobs/${job.id}`)).body, job)
})

t.test('the job passes through queued and processing to completed', async (t) => {
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'] })
  const rows = Array.from({ length: 20_000 }, (_, i) => point(`Q-${i}`))
  const upload = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv(rows)))
  const queued = await server.request('GET', `/v2/jobs/${upload.body.id}`, {
    headers: { 'x-shiplog-position': upload.headers.get('x-shiplog-position')! },
  })
  t.match(queued.body, { status: 'queued', processed_at: null, completed_at: null })
  t.notOk('results' in queued.body, 'no results before completion')
  // In the queue, waiting: only a worker would take it.
  await until(
    () => metric(server, 'shiplog_jobs', { queue: server.runtime.config.QUEUE_NAME, state: 'waiting' }),
    (n) => n === 1,
  )
  t.equal(
    (await server.request('GET', `/v2/jobs/${upload.body.id}`)).body.status,
    'queued',
    'nothing runs it without a worker',
  )

  await startTestServer(t, {
    roles: ['worker'],
    dataDir: server.dataDir,
    env: { QUEUE_NAME: server.runtime.config.QUEUE_NAME },
  })
  const { job, seen } = await waitForJob(server, upload.body.id)
  // Seen queued above; from here the worker may already have started it.
  t.same(
    seen,
    ['queued', 'processing', 'completed'].filter((s) => seen.includes(s)),
    'in order, never back',
  )
  t.ok(seen.includes('processing'), `seen ${seen.join(' → ')}`)
  t.equal(seen.at(-1), 'completed')
  t.equal(job.results.length, 20_000)
  t.ok(job.results.every((r: { status: number }) => r.status === 201))
  // 41 chunks of results (the first gives a row to the header), read twenty at a time as the answer streams: all of them, in file order.
  t.ok(
    job.results.every((r: { body: { line: number } }, i: number) => r.body.line === i + 2),
    'results in file order',
  )
})

t.test('a job resumed after a crash imports only the rows it had not recorded', async (t) => {
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'] })
  const rows = Array.from({ length: 1203 }, (_, i) => point(`R-${i}`))
  const upload = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv(rows)))
  // A runner that stopped after recording the results of the first 500 rows (their points are left out here, to tell them apart).
  const { eventStore } = server.runtime
  const stream = jobStream(server.accountId, upload.body.id)
  const recorded = Array.from({ length: 500 }, (_, i) => ({
    status: 201,
    body: { id: 1, merchant_id: `R-${i}`, line: i + 2 },
  }))
  const metadata = { accountId: server.accountId, correlationId: 'test', recordedAt: Date.now() }
  await eventStore.append([
    {
      stream,
      expected: 0,
      events: toNewEvents(
        [
          { type: 'JobStarted', data: { at: 1 } },
          { type: 'JobItemsProcessed', data: { chunk_id: 1, results: recorded, at: 1 } },
        ],
        metadata,
      ),
    },
  ])

  await runJob(server.runtime, { accountId: server.accountId, jobId: upload.body.id }, { lastAttempt: true })
  const { job } = await waitForJob(server, upload.body.id)
  t.equal(job.status, 'completed')
  t.equal(job.results.length, 1203)
  t.ok(
    job.results.every((r: { body: { line: number } }, i: number) => r.body.line === i + 2),
    'one result per row, in file order',
  )
  const points = await server.request('GET', '/v2/pickup_points?limit=100', { headers: { 'x-shiplog-position': '0' } })
  t.notOk(
    points.body.data.some((p: { merchant_id: string }) => Number(p.merchant_id.slice(2)) < 500),
    'rows already recorded are not imported again',
  )
  const imported = (await eventStore.readAll({ limit: 5000 })).filter((e) => e.type === 'PickupPointImported')
  t.same(
    [imported.length, (imported[0]!.data as { line: number }).line],
    [703, 502],
    'the import went on from line 502',
  )
})

t.test('a job whose file can no longer be read fails instead of waiting for it', async (t) => {
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'] })
  const upload = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('G-1')])))
  await server.runtime.blobs.remove(await blobOf(server, upload.body.id))
  const run = runJob(server.runtime, { accountId: server.accountId, jobId: upload.body.id }, { lastAttempt: true })
  const timeout = new Promise((resolve) => setTimeout(resolve, 5000, 'still waiting').unref())
  t.equal(await Promise.race([run.then(() => 'ended'), timeout]), 'ended')
  t.match((await waitForJob(server, upload.body.id)).job, {
    status: 'failed',
    error: { message: /failed after several attempts/ },
  })
})

t.test('a job that ended before its upload was removed removes it when delivered again', async (t) => {
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'] })
  const upload = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('K-1')])))
  const blob = await blobOf(server, upload.body.id)
  await runStoppedBeforeRemoval(server, upload.body.id)
  t.equal((await waitForJob(server, upload.body.id)).job.status, 'completed')
  t.ok(await readable(server.runtime.blobs.read(blob)), 'the file is left behind')

  await runJob(server.runtime, { accountId: server.accountId, jobId: upload.body.id }, { lastAttempt: true })
  t.notOk(await readable(server.runtime.blobs.read(blob)), 'delivered again, the ended job removes it')
  t.equal((await waitForJob(server, upload.body.id)).job.results.length, 1, 'and records nothing more')
})

t.test('the worker sweep removes the uploads of ended jobs, not of jobs still to run', async (t) => {
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'] })
  const { blobs } = server.runtime
  const ended = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('S-1')])))
  await runStoppedBeforeRemoval(server, ended.body.id)
  t.equal((await waitForJob(server, ended.body.id)).job.status, 'completed')
  const waiting = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('S-2')])))
  await waitForJob(server, waiting.body.id, (status) => status === 'queued')
  t.equal((await blobs.list()).length, 2)

  await removeLeftUploads(server.runtime)
  t.notOk(await readable(blobs.read(await blobOf(server, ended.body.id))), 'the file of the ended job is removed')
  t.ok(await readable(blobs.read(await blobOf(server, waiting.body.id))), 'the queued job keeps its file')
  t.same(await blobs.list(), [await blobOf(server, waiting.body.id)])
})

t.test('the sweep removes an upload whose job was never recorded, once a day has passed', async (t) => {
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'] })
  const { blobs } = server.runtime
  // A stop between storing the file and appending the job: the file is all there is.
  const dayOld = createIdGenerator(0, () => Date.now() - 25 * 3600_000).next()
  const abandoned = uploadKey(server.accountId, dayOld)
  const uploading = uploadKey(server.accountId, createIdGenerator(0).next())
  for (const key of [abandoned, uploading]) await blobs.write(key, Readable.from(['Name,Country\n']))
  const queued = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('Q-1')])))
  await waitForJob(server, queued.body.id, (status) => status === 'queued')

  await removeLeftUploads(server.runtime)
  t.same(
    (await blobs.list()).sort(),
    [uploading, await blobOf(server, queued.body.id)].sort(),
    'the day-old file of no job goes; a file still within its day and the file of a queued job stay',
  )
})

t.test('upload errors: no file part, empty file, too large, not multipart, and no job', async (t) => {
  const server = await startTestServer(t, { env: { MAX_UPLOAD_BYTES: '1000' } })
  const other = new FormData()
  other.append('attachment', new Blob(['x']), 'x.csv')
  const missing = await server.upload('/v2/pickup_points/import', other)
  t.equal(missing.status, 400)
  t.match(missing.body, { errors: { details: /file part/, file: 'is required' } })
  const empty = await server.upload('/v2/pickup_points/import', csvForm(''))
  t.equal(empty.status, 400)
  t.match(empty.body.errors, { file: 'is empty' })
  const big = await server.upload(
    '/v2/pickup_points/import',
    csvForm(pickupPointCsv(Array.from({ length: 50 }, (_, i) => point(`B-${i}`)))),
  )
  t.equal(big.status, 413)
  t.match(big.body, { errors: { details: /^The file is larger than [\d.]+ (KB|bytes), the limit$/ } })
  const json = await server.request('POST', '/v2/pickup_points/import', { body: { file: 'x' } })
  t.equal(json.status, 415)
  t.match(json.body, { errors: { details: 'The body must be multipart/form-data with a part named file' } })
  const csv = await server.request('POST', '/v2/pickup_points/import', {
    body: pickupPointCsv([point('C-1')]),
    headers: { 'content-type': 'text/csv' },
  })
  t.equal(csv.status, 415, 'a CSV sent as the body itself')
  t.match(csv.body, { errors: { details: 'The body must be multipart/form-data with a part named file' } })
  t.equal((await server.request('GET', '/v2/pickup_points')).body.data.length, 0)
  const jobs = await server.runtime.readStore.lookupAll('jobs', 'status', 'queued', 10)
  t.same(jobs, [], 'no job was created')
})

t.test('an upload repeated with the same Idempotency-Key answers the first job', async (t) => {
  const server = await startTestServer(t)
  const csv = pickupPointCsv([point('K-1')])
  const upload = (key: string) =>
    fetch(`${server.url}/v2/pickup_points/import`, {
      method: 'POST',
      headers: { authorization: server.privateKey, 'idempotency-key': key },
      body: csvForm(csv),
    }).then(async (r) => ({
      status: r.status,
      location: r.headers.get('location'),
      body: (await r.json()) as { id: number },
    }))
  const first = await upload('upload-1')
  const again = await upload('upload-1')
  t.equal(again.status, 202)
  t.same(again.body, first.body)
  t.equal(again.location, first.location)
  await waitForJob(server, first.body.id)
  t.same(
    await server.runtime.readStore.lookupAll('jobs', 'status', 'completed', 10).then((j) => j.map((d) => d.id)),
    [first.body.id],
    'one job',
  )
})

t.test('a Redis restart while a job waits loses nothing', async (t) => {
  const port = await freePort()
  const redis = await redisOn(t, port)
  const env = { REDIS_URL: redis.url }
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'], env })
  const upload = await server.upload('/v2/pickup_points/import', csvForm(pickupPointCsv([point('R-1'), point('R-2')])))
  t.equal(upload.status, 202)
  // Redis goes away with the queued job, and comes back empty.
  await redis.kill()
  await redis.start()
  await startTestServer(t, {
    roles: ['worker'],
    dataDir: server.dataDir,
    env: { ...env, QUEUE_NAME: server.runtime.config.QUEUE_NAME },
  })
  const { job } = await waitForJob(server, upload.body.id)
  t.equal(job.status, 'completed')
  t.same(
    job.results.map((r: { status: number }) => r.status),
    [201, 201],
    'applied once',
  )
})

t.test('a batch job of an account deleted before it ran fails, and writes no order', async (t) => {
  const server = await startTestServer(t, { roles: ['command', 'query', 'projector'] })
  const batch = await server.request('POST', '/v2/orders/batch_create', {
    body: { orders: [{ merchant_id: 'GONE-1' }, { merchant_id: 'GONE-2' }] },
  })
  t.equal(batch.status, 202)
  await deleteAccount(server.runtime, server.accountId)
  await runJob(server.runtime, { accountId: server.accountId, jobId: batch.body.job_id }, { lastAttempt: false })
  const events = asDomainEvents<JobEvent>(
    await server.runtime.eventStore.readStream(jobStream(server.accountId, batch.body.job_id)),
  )
  t.match(events.at(-1), { type: 'JobFailed', data: { error: 'The account was deleted' } })
  const orders = await server.runtime.eventStore.readAll({ types: ['OrderCreated'], limit: 10 })
  t.same(orders, [], 'no order was created for the deleted account')
})

t.test('X-Shiplog-Position beyond the head of the log is a 400 at once, not a held read', async (t) => {
  const server = await startTestServer(t, { env: { CONSISTENCY_WAIT_MS: '60000' } })
  const head = await server.runtime.eventStore.head()
  const far = await server.request('GET', '/v2/orders', { headers: { 'x-shiplog-position': String(head + 1000n) } })
  t.equal(far.status, 400)
  t.match(far.body.errors, { 'x-shiplog-position': 'is beyond the last position written' })
  const here = await server.request('GET', '/v2/orders', { headers: { 'x-shiplog-position': String(head) } })
  t.equal(here.status, 200)
})

/** Whether a blob can still be read to its end. */
const readable = async (stream: Readable) => {
  try {
    for await (const _ of stream);
    return true
  } catch {
    return false
  }
}

/** The key of a job's uploaded file, as its first event recorded it. */
const blobOf = async (server: TestServer, jobId: number) =>
  ((await server.runtime.eventStore.readStream(jobStream(server.accountId, jobId)))[0]!.data as { blob: string }).blob

/** Runs a job to its end with the upload's removal failing, as a run stopped between the two leaves it. */
async function runStoppedBeforeRemoval(server: TestServer, jobId: number) {
  const { blobs } = server.runtime
  const remove = blobs.remove
  blobs.remove = async () => {
    throw new Error('stopped')
  }
  try {
    await runJob(server.runtime, { accountId: server.accountId, jobId }, { lastAttempt: true })
  } finally {
    blobs.remove = remove
  }
}
