import type { FastifyReply, FastifyRequest } from 'fastify'
import type { UserState } from '../shared/domain/users/user.ts'
import { userStream } from '../shared/domain/users/user.ts'
import { collections } from '../shared/infra/read-store/collections.ts'
import type { Runtime } from '../shared/infra/runtime.ts'

/*
 * A console session: a cookie signed with a key of the service's own
 * (@fastify/cookie's HMAC), holding the user's address, when the session
 * began and when it was last used. It ends after SHIPLOG_CONSOLE_IDLE_MINUTES
 * unused, twelve hours after it began, when the user signs out or gets a new
 * password (the user's `sessions_after`), or when the user is deleted; an
 * altered cookie fails its signature and signs nobody in.
 */

export const SESSION_COOKIE = 'shiplog_console'
/** However active, a session ends after a working day: a stolen cookie is not good for long. */
const MAX_SESSION_MS = 12 * 3600_000

interface SessionValue {
  email: string
  began: number
  seen: number
}

/** Whether the console is reached over https: its public address says so, or the request did (through a trusted proxy). */
export const servedOverHttps = (rt: Pick<Runtime, 'config'>, request: FastifyRequest) =>
  rt.config.SHIPLOG_PUBLIC_URL?.startsWith('https:') || request.protocol === 'https'

export function setSession(
  rt: Pick<Runtime, 'config'>,
  request: FastifyRequest,
  reply: FastifyReply,
  value: SessionValue,
) {
  reply.setCookie(SESSION_COOKIE, Buffer.from(JSON.stringify(value)).toString('base64url'), {
    signed: true,
    httpOnly: true,
    sameSite: 'lax',
    secure: servedOverHttps(rt, request),
    path: '/console',
    maxAge: rt.config.SHIPLOG_CONSOLE_IDLE_MINUTES * 60,
  })
}

export const clearSession = (reply: FastifyReply) => reply.clearCookie(SESSION_COOKIE, { path: '/console' })

function sessionOf(request: FastifyRequest): SessionValue | undefined {
  const raw = request.cookies[SESSION_COOKIE]
  if (!raw) return undefined
  const unsigned = request.unsignCookie(raw)
  if (!unsigned.valid || unsigned.value === null) return undefined
  try {
    const value = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as SessionValue
    return typeof value.email === 'string' && Number.isFinite(value.began) && Number.isFinite(value.seen)
      ? value
      : undefined
  } catch {
    return undefined
  }
}

/** The signed-in user of a request, its session renewed; undefined when there is none or it has ended. */
export async function signedInUser(
  rt: Pick<Runtime, 'config' | 'readStore' | 'clock'>,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<UserState | undefined> {
  const session = sessionOf(request)
  if (!session) return undefined
  const now = rt.clock.nowMs()
  const idle = rt.config.SHIPLOG_CONSOLE_IDLE_MINUTES * 60_000
  if (now - session.seen > idle || now - session.began > MAX_SESSION_MS) return undefined
  const stored = await rt.readStore.getByKey<UserState>(collections.users.name, userStream(session.email))
  const user = stored?.doc
  if (!user || user.deleted || session.began < user.sessions_after) return undefined
  setSession(rt, request, reply, { ...session, seen: now })
  return user
}
