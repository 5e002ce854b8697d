import t from 'tap'
import { crashableService, serviceEnvironment } from '../support/process.ts'
import { queueDrained, reactionPassed } from '../support/progress.ts'
import { startMailbox } from '../support/smtp.ts'

/*
 * No e-mail lost when the service is killed between a notification and its
 * sending: the notifications are stored by a service without its worker role
 * (nothing is sent), it is killed with SIGKILL, and the restarted service
 * sends each once, through a real SMTP server on loopback.
 */
t.test('e-mails built before a kill -9 are sent after the restart, once each', async (t) => {
  const mailbox = await startMailbox(t)
  const env = await serviceEnvironment(t, { SMTP_URL: mailbox.url, SHIPLOG_MAIL_FROM: 'Shop <shop@example.com>' })
  const service = await crashableService(t, env)
  const trackers = Array.from({ length: 20 }, (_, i) => ({
    order_number: `E-${i}`,
    tracking_number: `TN-E${i}`,
    email: `c${i}@example.com`,
  }))
  const posted = await service.call('/v1/trackers', {
    method: 'POST',
    body: JSON.stringify({ trackers }),
  })
  t.equal(posted.status, 201)
  await service.kill()
  t.equal(mailbox.messages.length, 0, 'nothing was sent before the kill')

  await service.crashAndRestart()
  const mails = await mailbox.waitFor(20)
  t.same(
    mails.map((m) => (m.to && 'text' in m.to ? m.to.text : '')).sort(),
    trackers.map((tr) => tr.email).sort(),
    'every customer was told',
  )
  t.equal(new Set(mails.map((m) => m.messageId)).size, 20, 'each with its own Message-ID')
  // Each sent e-mail is recorded dispatched just after the SMTP server took it: its job ends then.
  await queueDrained(service, 'emails')
  await service.crashAndRestart()
  await reactionPassed(service, 'emails', posted.headers.get('x-shiplog-position')!)
  await queueDrained(service, 'emails')
  t.equal(mailbox.messages.length, 20, 'another kill and restart sends nothing again')
})
