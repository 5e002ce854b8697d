import t from 'tap'
import { renderJob, renderJobJson, type JobDoc } from '../../projectors/jobs/job.ts'

const job = (status: JobDoc['status']): JobDoc => ({
  id: 7,
  type: 'pickup_points.import',
  status,
  queued_at: 1,
  processed_at: 2,
  completed_at: status === 'completed' ? 3 : null,
  failed_at: status === 'failed' ? 3 : null,
  error: status === 'failed' ? 'broken' : null,
  // A payload that itself holds the text "results":[] must not be mistaken for the job's results.
  payload: { method: 'POST', url: '/v2/pickup_points/import', body: { note: '"results":[]', results: [] } },
  blob: null,
  items_processed: 3,
})
const results = [
  { status: 201, body: { id: 1, merchant_id: 'P-1', line: 2 } },
  { status: 422, body: { merchant_id: null, line: 3, errors: { name: 'is required' } } },
  { status: 200, body: { id: 1, merchant_id: 'P-1', line: 4 } },
]
// Chunk views as the read store gives them back: JSON array items in UTF-8, empty for an empty chunk.
const chunks = [
  JSON.stringify(results.slice(0, 2)).slice(1, -1),
  '',
  JSON.stringify(results.slice(2)).slice(1, -1),
].map((items) => Buffer.from(items))
const text = async (pieces: AsyncIterable<string | Uint8Array>) => {
  const buffers: Buffer[] = []
  for await (const p of pieces) buffers.push(typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))
  return Buffer.concat(buffers).toString()
}
const items = (list: Uint8Array[]) =>
  async function* () {
    yield* list
  }

t.test('the streamed job JSON is the job resource with every chunk’s results in order', async (t) => {
  const json = await text(renderJobJson(job('completed'), items(chunks)))
  t.same(JSON.parse(json), renderJob(job('completed'), results))
  t.same(
    await text(renderJobJson(job('completed'), items([]))),
    JSON.stringify(renderJob(job('completed'), [])),
    'no results',
  )
  for (const status of ['queued', 'processing', 'failed'] as const) {
    t.same(
      JSON.parse(await text(renderJobJson(job(status), items(chunks)))),
      renderJob(job(status)),
      `${status}: no results shown`,
    )
  }
})
