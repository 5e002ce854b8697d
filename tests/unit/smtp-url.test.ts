import { execFileSync } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { SMTPServer } from 'smtp-server'
import t from 'tap'
import { smtpTransport } from '../../reactions/emails/sender.ts'
import { tempDir } from '../support/temp.ts'

/*
 * SMTP_URL is read by nodemailer itself: its URL options reach the transport.
 * A real SMTP server on loopback (smtp-server) offers STARTTLS with a
 * self-signed certificate made for the test, as a relay inside a private
 * network often does.
 */
t.test(
  'a relay with a self-signed certificate: refused by default, accepted with ?tls.rejectUnauthorized=false',
  async (t) => {
    const received: string[] = []
    const dir = tempDir(t, 'shiplog-smtp-tls-')
    const [key, cert] = [join(dir, 'key.pem'), join(dir, 'cert.pem')]
    const subject = ['-subj', '/CN=relay.internal', '-days', '2', '-nodes']
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', ...subject, '-keyout', key, '-out', cert], {
      stdio: 'ignore',
    })
    const server = new SMTPServer({
      authOptional: true,
      key: readFileSync(key),
      cert: readFileSync(cert),
      logger: false,
      onData(stream, session, callback) {
        stream.resume()
        stream.on('end', () => {
          received.push(session.envelope.rcptTo[0]?.address ?? '')
          callback()
        })
      },
    })
    server.listen(0, '127.0.0.1')
    await once(server.server, 'listening')
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const { port } = server.server.address() as { port: number }
    const mail = { from: 'shop@example.com', to: 'jo@example.com', subject: 'Shipped', text: 'On its way' }

    const strict = smtpTransport(`smtp://127.0.0.1:${port}`)
    await t.rejects(strict.sendMail(mail), /self[- ]signed certificate/)
    strict.close()

    const relaxed = smtpTransport(`smtp://127.0.0.1:${port}?tls.rejectUnauthorized=false`)
    await relaxed.sendMail(mail)
    relaxed.close()
    t.same(received, ['jo@example.com'])

    const plain = smtpTransport(`smtp://127.0.0.1:${port}?ignoreTLS=true`)
    await plain.sendMail(mail)
    plain.close()
    t.same(received, ['jo@example.com', 'jo@example.com'], 'ignoreTLS sends without STARTTLS')
  },
)

t.test("shiplog's timeouts apply unless the URL sets its own", async (t) => {
  const options = (url: string) => (smtpTransport(url) as unknown as { options: Record<string, unknown> }).options
  t.match(options('smtp://relay.example:25'), { host: 'relay.example', port: 25, connectionTimeout: 10_000 })
  t.match(options('smtps://u:p%40ss@relay.example?connectionTimeout=3000'), {
    secure: true,
    connectionTimeout: 3000,
    auth: { user: 'u', pass: 'p@ss' },
  })
})
