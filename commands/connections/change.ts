import type { ConnectionEvent, ConnectionState } from '../../shared/domain/connections/connection.ts'
import { connectionStream, decideConnection, evolveConnection } from '../../shared/domain/connections/connection.ts'
import { notFound } from '../../shared/domain/errors.ts'
import type { JobQueue } from '../../shared/infra/jobs/queue.ts'
import { collections } from '../../shared/infra/read-store/collections.ts'
import type { Runtime } from '../../shared/infra/runtime.ts'
import { type CommandRequest, changeStream } from '../execute.ts'
import { acceptJob } from '../jobs/accept.ts'

/*
 * What a merchant does to a store connection once it is made, whoever asks
 * (the API, the console): bring its orders in since a time, as a job, or
 * disconnect it. Each answers as the API does.
 */

/** The account's connection as the read model has it; a deleted one is not found. */
async function connectionOf(rt: Runtime, accountId: number, id: number) {
  const stored = await rt.readStore.get<ConnectionState>(collections.connections.name, accountId, id)
  if (!stored || stored.doc.deleted) throw notFound('Connection not found')
  return stored.doc
}

/** Queues a backfill of the store's orders created since `since` (Unix seconds); `path` is the API path it is recorded as asked on. */
export async function backfillConnection(
  rt: Runtime,
  jobs: JobQueue,
  command: CommandRequest,
  id: number,
  since: number,
  path: string,
  log: Parameters<typeof acceptJob>[5],
) {
  await connectionOf(rt, command.account.id, id)
  const job = {
    type: 'connections.backfill' as const,
    payload: { method: 'POST', url: path, body: { connection_id: id, since } },
  }
  return acceptJob(rt, jobs, command, job, 'job', log)
}

/** Disconnects a store: its orders stop coming in; the parcels already here keep being tracked. */
export function disconnectStore(rt: Runtime, command: CommandRequest, id: number) {
  return changeStream<ConnectionEvent, ConnectionState>(rt, command, {
    stream: connectionStream(command.account.id, id),
    evolve: evolveConnection,
    decide: (at, state) => decideConnection({ type: 'DeleteConnection', data: { at } }, state),
    answer: () => ({ status: 200, body: { object: 'connection', id, deleted: true } }),
  })
}
