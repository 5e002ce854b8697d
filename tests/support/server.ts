import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import { checkAnswer } from './contract.ts'
import { storesOnPostgres } from './postgres.ts'
import { createAccount } from '../../commands/accounts/change-account.ts'
import { startServer, type RunningServer } from '../../server/start.ts'
import type { Clock } from '../../shared/infra/clock.ts'
import { loadConfig, type Role } from '../../shared/infra/config.ts'

export interface TestServer extends RunningServer {
  privateKey: string
  publicKey: string
  accountId: number
  dataDir: string
  /** The settings that name this server's stores (DATA_DIR, and DATABASE_URL on PostgreSQL), for a CLI on them. */
  stores: Record<string, string>
  /** Another account on the same server, to prove isolation. */
  newAccount(name?: string): Promise<{ id: number; private_key: string; public_key: string }>
  request(
    method: string,
    path: string,
    options?: { body?: unknown; key?: string | null; headers?: Record<string, string> },
  ): Promise<TestResponse>
  /** POST a multipart/form-data body (a CSV upload). */
  upload(path: string, form: FormData, key?: string): Promise<TestResponse>
}

export interface TestResponse {
  status: number
  headers: Headers
  body: any
}

/** A data directory's PostgreSQL schema (with DATABASE_URL): a server restarted on it finds its stores. */
const schemas = new Map<string, Record<string, string>>()
const postgresOf = (dataDir: string) => {
  const env = schemas.get(dataDir) ?? storesOnPostgres()
  schemas.set(dataDir, env)
  return env
}

/**
 * Starts the real server on a free port with embedded stores in a temporary
 * folder, a fresh queue name and one account; torn down when the test ends.
 */
export async function startTestServer(
  t: Test,
  options: { env?: Record<string, string>; clock?: Clock; roles?: Role[]; dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'shiplog-test-'))
  const config = loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    QUEUE_NAME: `test-${randomUUID()}`,
    POLL_INTERVAL_MS: '20',
    ...postgresOf(dataDir),
    ...options.env,
  })
  const server = await startServer(config, { clock: options.clock, roles: options.roles })
  t.teardown(async () => {
    await server.close()
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true })
  })
  const account = await createAccount(server.runtime, 'Test merchant')
  // Every answer is held to the OpenAPI document this server serves (tests/support/contract.ts).
  let documentText: string | undefined
  const checked = async (method: string, path: string, response: TestResponse) => {
    documentText ??= JSON.stringify(server.openapi())
    checkAnswer(documentText, { method, path, ...response })
    return response
  }
  const request: TestServer['request'] = async (
    method,
    path,
    { body, key = account.private_key, headers = {} } = {},
  ) => {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: {
        ...(body !== undefined && typeof body !== 'string' ? { 'content-type': 'application/json' } : {}),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    })
    return checked(method, path, await toTestResponse(response))
  }
  const upload: TestServer['upload'] = async (path, form, key = account.private_key) => {
    const response = await fetch(`${server.url}${path}`, {
      method: 'POST',
      headers: { authorization: key },
      body: form,
    })
    return checked('POST', path, await toTestResponse(response))
  }
  return {
    ...server,
    privateKey: account.private_key,
    publicKey: account.public_key,
    accountId: account.id,
    dataDir,
    stores: { DATA_DIR: dataDir, ...postgresOf(dataDir) },
    newAccount: (name = 'Other merchant') => createAccount(server.runtime, name),
    request,
    upload,
  }
}

async function toTestResponse(response: Response): Promise<TestResponse> {
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed }
}

/** POST /v1/trackers, then the position to read it back with. */
export async function postTrackers(server: TestServer, trackers: unknown[], headers: Record<string, string> = {}) {
  const response = await server.request('POST', '/v1/trackers', { body: { trackers }, headers })
  return { ...response, position: response.headers.get('x-shiplog-position') ?? undefined }
}

/** GET with read-your-writes on the given position. */
export const readAfter = (server: TestServer, path: string, position: string | undefined, key?: string) =>
  server.request('GET', path, { key, headers: position ? { 'x-shiplog-position': position } : {} })

/** The tracker with this tracking number, its events expanded, once the write at `position` is seen. */
export async function trackerOf(server: TestServer, trackingNumber: string, position?: string) {
  const list = await readAfter(server, `/v2/trackers?tracking_number=${trackingNumber}&expand[]=events`, position)
  return list.body.data[0]
}

/** POST /v2/trackers/events as sent, with the position its answer names. */
export async function recordTrackingEvents(server: TestServer, events: unknown[], key?: string) {
  const response = await server.request('POST', '/v2/trackers/events', { body: { events }, key })
  return { ...response, position: response.headers.get('x-shiplog-position') ?? undefined }
}
