import type { TestServer } from './server.ts'

/** Polls GET /v2/jobs/{id} until `until` holds of its status; the job and the statuses it went through. */
export async function waitForJob(
  server: TestServer,
  id: number,
  until: (status: string) => boolean = (s) => s === 'completed' || s === 'failed',
) {
  const seen: string[] = []
  for (let i = 0; i < 1500; i++) {
    const job = await server.request('GET', `/v2/jobs/${id}`)
    if (job.status === 200 && seen.at(-1) !== job.body.status) seen.push(job.body.status)
    if (job.status === 200 && until(job.body.status)) return { job: job.body, seen }
    await new Promise((r) => setTimeout(r, 20))
  }
  throw new Error(`job ${id} did not finish; saw ${seen.join(' → ')}`)
}
