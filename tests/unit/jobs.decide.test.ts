import t from 'tap'
import { decideJob, evolveJobState, type JobEvent } from '../../shared/domain/jobs/job.ts'
import { specOf } from '../support/decider.ts'

const given = specOf({ decide: decideJob, evolve: evolveJobState })
const payload = { method: 'POST', url: '/v2/pickup_points/import', body: {} }
const queuedData = { job_id: 7, type: 'pickup_points.import' as const, payload, blob: '1/7.csv', at: 100 }
const queued: JobEvent = { type: 'JobQueued', data: queuedData }
const started: JobEvent = { type: 'JobStarted', data: { at: 101 } }
const results = (n: number) => Array.from({ length: n }, () => ({ status: 201, body: {} }))
const items = (n: number): JobEvent => ({
  type: 'JobItemsProcessed',
  data: { chunk_id: 50 + n, results: results(n), at: 102 },
})

t.test('a new job is queued', async (t) => {
  given([]).when({ type: 'QueueJob', data: queuedData }).thenEvents(t, [queued])
})

t.test('a job is queued only once', async (t) => {
  given([queued]).when({ type: 'QueueJob', data: queuedData }).thenThrows(t, { code: 'SHIPLOG_ERR_CONFLICT' })
})

t.test('a queued job starts; a resumed one is already started', async (t) => {
  given([queued]).when({ type: 'StartJob', at: 101 }).thenEvents(t, [started])
  given([queued, started]).when({ type: 'StartJob', at: 105 }).thenEvents(t, [])
})

t.test('items are recorded only while the job runs', async (t) => {
  given([queued, started])
    .when({ type: 'RecordItems', chunk_id: 52, results: results(2), at: 102 })
    .thenEvents(t, [items(2)])
  given([queued])
    .when({ type: 'RecordItems', chunk_id: 52, results: [], at: 102 })
    .thenThrows(t, { code: 'SHIPLOG_ERR_CONFLICT' })
})

t.test('a job ends once: commands after its end record nothing', async (t) => {
  given([queued, started, items(3)])
    .when({ type: 'CompleteJob', at: 110 })
    .thenEvents(t, [{ type: 'JobCompleted', data: { at: 110 } }])
  const completed: JobEvent = { type: 'JobCompleted', data: { at: 110 } }
  given([queued, started, completed]).when({ type: 'FailJob', error: 'late', at: 111 }).thenEvents(t, [])
  given([queued, started, completed]).when({ type: 'CompleteJob', at: 111 }).thenEvents(t, [])
  given([queued, started])
    .when({ type: 'FailJob', error: 'bad file', at: 111 })
    .thenEvents(t, [{ type: 'JobFailed', data: { error: 'bad file', at: 111 } }])
})

t.test('the state counts the items done, so a resumed job skips them', async (t) => {
  const state = [queued, started, items(3), items(2)].reduce(evolveJobState, undefined as never)
  t.match(state, { id: 7, status: 'processing', items_processed: 5, blob: '1/7.csv' })
})

t.test('a command for a job that was never queued is refused', async (t) => {
  given([]).when({ type: 'StartJob', at: 1 }).thenThrows(t, { code: 'SHIPLOG_ERR_NOT_FOUND' })
})
