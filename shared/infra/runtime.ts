import { accessSync, constants, existsSync, mkdirSync, statSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { isMainThread } from 'node:worker_threads'
import { pino, type Logger } from 'pino'
import { systemClock, type Clock } from './clock.ts'
import type { Config } from './config.ts'
import type { ProjectionProgress } from './read-store/projection-progress.ts'
import { createFileBlobStore } from './blobs/files.ts'
import { createSecretBox, dataDirectoryKey, parseSecretKey, type SecretBox } from './secrets.ts'
import type { BlobStore } from './blobs/port.ts'
import type { EventStore } from './event-store/port.ts'
import { createSqliteEventStore } from './event-store/sqlite.ts'
import { createIdGenerator, type IdGenerator } from './id-generator.ts'
import { allCollections } from './read-store/collections.ts'
import type { ReadStore } from './read-store/port.ts'
import { createSqliteReadStore } from './read-store/sqlite.ts'
import type { WalCheckpoints } from './sqlite/checkpoints.ts'

/**
 * Where a write's time went in the command core: from its decision until its
 * events were stored, then waiting for the read models to include them (none
 * with SHIPLOG_WRITE_VISIBILITY=appended); `reached` is false when the wait
 * ran out and the write answered before its data was readable.
 */
export interface WriteTiming {
  storedSeconds: number
  visible?: { seconds: number; reached: boolean }
}

/** What every role shares: configuration, the two stores, the id allocator, the clock and the logger. */
export interface Runtime {
  config: Config
  eventStore: EventStore
  readStore: ReadStore
  ids: IdGenerator
  clock: Clock
  logger: Logger
  blobs: BlobStore
  /** Seals and opens the secrets shiplog stores (webhook signing secrets). */
  secrets: SecretBox
  /** This process's projector's progress, when it runs one: writes and reads wait on it. */
  projections?: ProjectionProgress
  /** Told of each command that appended, when /metrics is served: its write histogram. */
  observeWrite?: (timing: WriteTiming) => void
  close(): Promise<void>
}

/* The embedded stores' SQLite files under the data directory. */
const eventsFile = (config: Config) => join(config.DATA_DIR, 'events.db')
const readFile = (config: Config) => join(config.DATA_DIR, 'read.db')

/** The SQLite files of the stores the configuration leaves embedded. */
export function embeddedFiles(config: Config): string[] {
  return [
    ...(config.EVENTSTORE_URL || config.DATABASE_URL ? [] : [eventsFile(config)]),
    ...(config.MONGODB_URL || config.DATABASE_URL ? [] : [readFile(config)]),
  ]
}

export interface RuntimeOptions {
  clock?: Clock
  logger?: Logger
  /** Who checkpoints the embedded stores' write-ahead logs: `background` when the server runs a checkpointer. */
  walCheckpoints?: WalCheckpoints
}

export async function openRuntime(config: Config, overrides: RuntimeOptions = {}): Promise<Runtime> {
  const logger = overrides.logger ?? pino({ level: config.LOG_LEVEL, base: { service: 'shiplog' } })
  const embedded = embeddedFiles(config).length > 0
  // What the service writes (stores, uploads, its key) is for its own user only.
  if (isMainThread) process.umask(0o077)
  if (embedded) usableDataDir(config.DATA_DIR)
  if ((config.EVENTSTORE_URL || config.DATABASE_URL) && !config.SHIPLOG_SECRET_KEY) {
    throw new StartupError(
      'set SHIPLOG_SECRET_KEY to 32 random bytes in base64 (make one with `openssl rand -base64 32`): with a shared event store every process must seal secrets with the same key',
    )
  }
  // The key is read (or made) when a secret is first sealed or opened, not by commands that need none.
  const secrets = lazySecretBox(() => secretKey(config))
  // The server adapters' clients are loaded only when configured: each weighs
  // several MB of heap in every thread that opens a runtime.
  const eventStore = config.EVENTSTORE_URL
    ? await reachable(
        'KurrentDB',
        config.EVENTSTORE_URL,
        (await import('./event-store/kurrentdb.ts')).createKurrentEventStore(config.EVENTSTORE_URL),
        (store) => store.head(),
      )
    : config.DATABASE_URL
      ? await reachable(
          'PostgreSQL',
          config.DATABASE_URL,
          (await import('./event-store/postgres.ts')).createPostgresEventStore(config.DATABASE_URL),
        )
      : createSqliteEventStore(eventsFile(config), overrides.walCheckpoints)
  const readStore = config.MONGODB_URL
    ? await reachable(
        'MongoDB',
        config.MONGODB_URL,
        (await import('./read-store/mongodb.ts')).createMongoReadStore(config.MONGODB_URL, allCollections),
      )
    : config.DATABASE_URL
      ? await reachable(
          'PostgreSQL',
          config.DATABASE_URL,
          (await import('./read-store/postgres.ts')).createPostgresReadStore(config.DATABASE_URL, allCollections),
        )
      : createSqliteReadStore(readFile(config), allCollections, overrides.walCheckpoints)
  const blobs = config.MONGODB_URL
    ? await (await import('./blobs/gridfs.ts')).createGridFsBlobStore(config.MONGODB_URL)
    : config.DATABASE_URL
      ? await (await import('./blobs/postgres.ts')).createPostgresBlobStore(config.DATABASE_URL)
      : createFileBlobStore(join(config.DATA_DIR, 'blobs'))
  const clock = overrides.clock ?? systemClock
  return {
    config,
    eventStore,
    readStore,
    ids: createIdGenerator(config.NODE_ID, clock.nowMs),
    clock,
    logger,
    blobs,
    secrets,
    async close() {
      await Promise.allSettled([eventStore.close(), readStore.close(), blobs.close?.()])
    },
  }
}

/**
 * The key sealing stored secrets: SHIPLOG_SECRET_KEY, else the data
 * directory's. With a shared event store every process must be given the
 * same key, or one could not open what another sealed.
 */
function secretKey(config: Config): Buffer {
  if (config.SHIPLOG_SECRET_KEY) return parseSecretKey(config.SHIPLOG_SECRET_KEY)!
  usableDataDir(config.DATA_DIR)
  return dataDirectoryKey(config.DATA_DIR)
}

function lazySecretBox(key: () => Buffer): SecretBox {
  let box: SecretBox | undefined
  const opened = () => (box ??= createSecretBox(key()))
  return {
    seal: (plain) => opened().seal(plain),
    open: (stored) => opened().open(stored),
    derive: (purpose) => opened().derive(purpose),
  }
}

/** A fault of the service's surroundings at start (a port taken, a store away): one line, no stack trace. */
export class StartupError extends Error {
  override name = 'StartupError'
}

/** How long a start waits for a database server before it says which one is away. */
const CONNECT_TIMEOUT_MS = 10_000

/**
 * The data directory, created when missing, and writable. Its missing folders
 * are made one by one from the nearest one that exists: Node's recursive
 * mkdir retries for ever under a parent that says a child is missing and
 * cannot be made (`/proc`).
 */
function usableDataDir(dir: string) {
  try {
    const missing: string[] = []
    for (let at = resolve(dir); !existsSync(at); at = dirname(at)) missing.unshift(at)
    for (const folder of missing) mkdirSync(folder)
    if (!statSync(dir).isDirectory()) {
      throw new StartupError(`the data directory ${resolve(dir)} is a file, not a directory: set DATA_DIR`)
    }
    accessSync(dir, constants.W_OK)
  } catch (error) {
    if (error instanceof StartupError) throw error
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message
    throw new StartupError(`the data directory ${resolve(dir)} is not writable (${reason}): set DATA_DIR`)
  }
}

/** Waits, at most CONNECT_TIMEOUT_MS, for a server adapter to answer; says which URL did not. */
async function reachable<T>(name: string, url: string, store: T | Promise<T>, probe?: (store: T) => Promise<unknown>) {
  const where = redacted(url)
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StartupError(`${name} at ${where} did not answer within ${CONNECT_TIMEOUT_MS / 1000} s`)),
      CONNECT_TIMEOUT_MS,
    )
  })
  try {
    return await Promise.race([
      (async () => {
        const opened = await store
        await probe?.(opened)
        return opened
      })(),
      timeout,
    ])
  } catch (error) {
    if (error instanceof StartupError) throw error
    throw new StartupError(`${name} at ${where} is unreachable: ${(error as Error).message}`)
  } finally {
    clearTimeout(timer)
  }
}

/** A connection string without its password, fit for a log line. */
const redacted = (url: string) => url.replace(/\/\/([^:/@]+):[^@]*@/, '//$1:***@')
