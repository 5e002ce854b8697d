import { once } from 'node:events'
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { Test } from 'tap'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  json: any
}

export interface Receiver {
  url: string
  received: Received[]
  /** Statuses to answer, in order; once spent, every request gets `fallback`. */
  answers: number[]
  fallback: number
  /** How long it takes to answer each request, as a slow receiver does (ms). */
  delayMs: number
  /** Resolves once `n` requests have arrived (polling, bounded). */
  waitFor(n: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
}

/** Where a receiver takes webhooks. */
const PATH = '/hooks'

/** A merchant's webhook receiver on loopback: records every webhook posted to it and answers as told. */
export async function startReceiver(t: Test): Promise<Receiver> {
  const receiver: Omit<Receiver, 'url'> & { url?: string } = {
    received: [],
    answers: [],
    fallback: 200,
    delayMs: 0,
    async waitFor(n, timeoutMs = 20_000) {
      const started = Date.now()
      while (receiver.received.length < n) {
        if (Date.now() - started > timeoutMs) {
          const types = receiver.received.map((r) => r.json?.type).join(', ')
          throw new Error(`expected ${n} webhook requests, got ${receiver.received.length}: ${types}`)
        }
        await new Promise((r) => setTimeout(r, 25))
      }
      return receiver.received
    },
    close: async () => {
      server.closeAllConnections()
      server.close()
    },
  }
  const server = createServer((request, response) => {
    // Webhooks are POSTs to the receiver's path; anything else (a request meant for a server that once
    // had this port) is not one, and is not counted.
    if (request.method !== 'POST' || request.url !== PATH) {
      response.statusCode = 404
      response.end()
      return
    }
    const chunks: Buffer[] = []
    request.on('data', (c: Buffer) => chunks.push(c))
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      let json: unknown
      try {
        json = JSON.parse(body)
      } catch {
        json = undefined
      }
      receiver.received.push({ headers: request.headers, body, json })
      response.statusCode = receiver.answers.shift() ?? receiver.fallback
      if (receiver.delayMs > 0) setTimeout(() => response.end('ok'), receiver.delayMs)
      else response.end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const { port } = server.address() as { port: number }
  receiver.url = `http://127.0.0.1:${port}${PATH}`
  t.teardown(() => receiver.close())
  return receiver as Receiver
}
