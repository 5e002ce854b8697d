import { once } from 'node:events'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import type { Test } from 'tap'

export interface Mailbox {
  /** `smtp://127.0.0.1:<port>`, for SMTP_URL. */
  url: string
  messages: ParsedMail[]
  /** Refuse this many messages with a temporary error (451) before accepting again. */
  refuseNext: number
  /** Refuse every message. */
  refuseAll: boolean
  waitFor(n: number, timeoutMs?: number): Promise<ParsedMail[]>
}

/** A real SMTP server on loopback (smtp-server), each message parsed with mailparser. */
export async function startMailbox(t: Test): Promise<Mailbox> {
  const mailbox: Omit<Mailbox, 'url'> = {
    messages: [],
    refuseNext: 0,
    refuseAll: false,
    async waitFor(n, timeoutMs = 20_000) {
      const started = Date.now()
      while (mailbox.messages.length < n) {
        if (Date.now() - started > timeoutMs) {
          const subjects = mailbox.messages.map((m) => m.subject).join(' | ')
          throw new Error(`expected ${n} e-mails, got ${mailbox.messages.length}: ${subjects}`)
        }
        await new Promise((r) => setTimeout(r, 25))
      }
      return mailbox.messages
    },
  }
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const refuse = mailbox.refuseAll || mailbox.refuseNext > 0
      simpleParser(stream).then(
        (mail) => {
          if (refuse) {
            mailbox.refuseNext = Math.max(0, mailbox.refuseNext - 1)
            return callback(Object.assign(new Error('Mailbox busy, try later'), { responseCode: 451 }))
          }
          mailbox.messages.push(mail)
          callback()
        },
        (error: Error) => callback(error),
      )
    },
  })
  server.listen(0, '127.0.0.1')
  await once(server.server, 'listening')
  const { port } = server.server.address() as { port: number }
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return Object.assign(mailbox, { url: `smtp://127.0.0.1:${port}` })
}
