import { Readable } from 'node:stream'
import type { FastifyReply } from 'fastify'
import type { ViewBytes } from '../../shared/infra/read-store/port.ts'

/*
 * Answers built from read-model views go into buffers that are reused once an
 * answer has been sent: V8 counts every new buffer towards its next full
 * collection, and a new megabyte per page made those collections, and the
 * listing's slowest answers, frequent.
 */
const free: Buffer[] = []
/** Buffers kept for reuse: as many answers as are usually being sent at once. */
const KEPT = 4
const MIN_SIZE = 1 << 20

function take(size: number): Buffer {
  const i = free.findIndex((b) => b.length >= size)
  return i >= 0 ? free.splice(i, 1)[0]! : Buffer.allocUnsafeSlow(Math.max(size, MIN_SIZE))
}

const END = Buffer.from(']}')
const COMMA = 0x2c

/**
 * Sends the list envelope around pre-serialised items (a read model's view),
 * copied in as they are, never decoded.
 */
export function sendViewList(reply: FastifyReply, items: readonly ViewBytes[], hasMore: boolean) {
  const head = Buffer.from(`{"object":"list","has_more":${hasMore},"data":[`)
  const buffer = take(head.length + joinedLength(items) + END.length)
  let at = copyJoined(items, buffer, head.copy(buffer, 0))
  at += END.copy(buffer, at)
  // 'close' comes once the answer is written out or the connection is gone: the socket holds the buffer no more.
  reply.raw.once('close', () => {
    if (free.length < KEPT) free.push(buffer)
  })
  return reply.type('application/json; charset=utf-8').send(buffer.subarray(0, at))
}

/**
 * Copies views into `target` from `at`, a comma between them, leaving out
 * empty ones; returns the offset after the last byte written. `target` must
 * hold `joinedLength(views)` bytes from `at`.
 */
function copyJoined(views: readonly ViewBytes[], target: Uint8Array, at: number): number {
  let first = true
  for (const view of views) {
    if (view.byteLength === 0) continue
    if (!first) target[at++] = COMMA
    view.copyTo(target, at)
    at += view.byteLength
    first = false
  }
  return at
}

/** The length of the views joined by `copyJoined`. */
const joinedLength = (views: readonly ViewBytes[]) => {
  const nonEmpty = views.filter((v) => v.byteLength > 0)
  return nonEmpty.reduce((n, v) => n + v.byteLength, 0) + Math.max(nonEmpty.length - 1, 0)
}

/** Views joined by commas in a buffer of their own. */
export function joinViews(views: readonly ViewBytes[]): Buffer {
  const buffer = Buffer.allocUnsafe(joinedLength(views))
  copyJoined(views, buffer, 0)
  return buffer
}

/** A JSON answer streamed as its pieces are made (a job's results, chunk by chunk). */
export const sendJsonStream = (reply: FastifyReply, pieces: AsyncIterable<string | Uint8Array>) =>
  reply.type('application/json; charset=utf-8').send(Readable.from(pieces))
