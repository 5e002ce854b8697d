import {
  KurrentDBClient,
  ANY,
  BACKWARDS,
  END,
  FORWARDS,
  NO_STREAM,
  START,
  STREAM_EXISTS,
  eventTypeFilter,
  jsonEvent,
  WrongExpectedVersionError,
  StreamNotFoundError,
  type AppendStreamState,
  type Position as KurrentPosition,
  type AllStreamResolvedEvent,
} from '@kurrent/kurrentdb-client'
import { ConcurrencyError } from '../../domain/errors.ts'
import type { EventMetadata, EventStore, ExpectedState, RecordedEvent } from './port.ts'

const toStreamState = (expected: ExpectedState): AppendStreamState =>
  expected === 'any'
    ? ANY
    : expected === 'no_stream'
      ? NO_STREAM
      : expected === 'stream_exists'
        ? STREAM_EXISTS
        : BigInt(expected)

/*
 * KurrentDB gives every event a commit and a prepare position; for events
 * written outside explicit transactions (all of ours) the two are equal, so the
 * port's single bigint position is the commit position.
 */
const toPosition = (p: bigint): KurrentPosition => ({ commit: p, prepare: p })

function toRecorded(resolved: Pick<AllStreamResolvedEvent, 'event'>): RecordedEvent | undefined {
  const e = resolved.event
  if (!e?.isJson || e.type.startsWith('$')) return undefined
  return {
    id: e.id,
    stream: e.streamId,
    revision: Number(e.revision),
    position: e.position?.commit ?? 0n,
    type: e.type,
    data: e.data,
    metadata: e.metadata as unknown as EventMetadata,
  }
}

/** Production event store on KurrentDB (EventStoreDB) through the official gRPC client. */
export function createKurrentEventStore(connectionString: string): EventStore {
  const client = KurrentDBClient.connectionString(connectionString)
  const listeners = new Set<() => void>()
  const store: EventStore = {
    kind: 'kurrentdb',
    async append(requests) {
      const toEventData = (r: (typeof requests)[number]) =>
        r.events.map((e) =>
          jsonEvent({ id: e.id, type: e.type, data: e.data as Record<string, unknown>, metadata: { ...e.metadata } }),
        )
      try {
        if (requests.length === 1) {
          const [req] = requests as [(typeof requests)[number]]
          const result = await client.appendToStream(req.stream, toEventData(req), {
            streamState: toStreamState(req.expected),
          })
          return { position: result.position?.commit ?? 0n, revisions: [Number(result.nextExpectedRevision)] }
        }
        // Several streams at once: multi-stream append is atomic (KurrentDB 25.1+).
        const result = await client.multiStreamAppend(
          requests.map((r) => ({
            streamName: r.stream,
            events: toEventData(r),
            expectedState: toStreamState(r.expected),
          })),
        )
        const byStream = new Map(result.responses.map((r) => [r.streamName, Number(r.revision)]))
        return { position: result.position, revisions: requests.map((r) => byStream.get(r.stream) ?? -1) }
      } catch (error) {
        if (error instanceof WrongExpectedVersionError) {
          throw new ConcurrencyError(error.streamName, String(error.expectedState), String(error.actualState))
        }
        throw error
      } finally {
        for (const l of listeners) l()
      }
    },
    async readStreams(reads) {
      // gRPC multiplexes the reads over one connection.
      return Promise.all(reads.map((r) => store.readStream(r.stream, r.fromRevision)))
    },
    readStreamsToFold(reads) {
      // Events come whole over gRPC: nothing to leave out.
      return this.readStreams(reads)
    },
    async readStream(stream, fromRevision = 0) {
      const events: RecordedEvent[] = []
      try {
        for await (const resolved of client.readStream(stream, {
          fromRevision: fromRevision === 0 ? START : BigInt(fromRevision),
          direction: FORWARDS,
        })) {
          const e = toRecorded(resolved as AllStreamResolvedEvent)
          if (e) events.push(e)
        }
      } catch (error) {
        if (error instanceof StreamNotFoundError) return []
        throw error
      }
      return events
    },
    async readAll({ after, types, limit }) {
      const events: RecordedEvent[] = []
      const filter =
        types && types.length > 0 ? eventTypeFilter({ prefixes: [...types] }) : eventTypeFilter({ regex: '^[^$]' })
      // readAll from a position includes the event at that position; the port's `after` is exclusive.
      for await (const resolved of client.readAll({
        fromPosition: after === undefined ? START : toPosition(after),
        direction: FORWARDS,
        maxCount: limit + 1,
        filter,
      })) {
        const e = toRecorded(resolved)
        if (!e || (after !== undefined && e.position <= after)) continue
        if (types && types.length > 0 && !types.includes(e.type)) continue
        events.push(e)
        if (events.length === limit) break
      }
      return events
    },
    async head() {
      for await (const resolved of client.readAll({ fromPosition: END, direction: BACKWARDS, maxCount: 1 })) {
        return resolved.event?.position?.commit ?? 0n
      }
      return 0n
    },
    onAppend(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
    async close() {
      await client.dispose()
    },
  }
  return store
}
