import t from 'tap'
import { crashableService, serviceEnvironment } from '../support/process.ts'
import { queueDrained, reactionPassed } from '../support/progress.ts'
import { startTwilioLoopback } from '../support/twilio.ts'

/*
 * No SMS lost, none sent twice, when the service is killed: the
 * notifications are stored by a service without its worker role (nothing is
 * sent), it is killed with SIGKILL, and the restarted service texts each
 * customer once, through a loopback server answering as Twilio does; a
 * second kill and restart sends nothing again.
 */
t.test('SMS built before a kill -9 are sent after the restart, once each', async (t) => {
  const twilio = await startTwilioLoopback(t)
  const env = await serviceEnvironment(t, twilio.env())
  // The public address is the service's own, so that every restart signs the same callback addresses.
  env.SHIPLOG_PUBLIC_URL = `http://127.0.0.1:${env.PORT}`
  const service = await crashableService(t, env)
  const quiet = await service.call('/v2/account', {
    method: 'PATCH',
    body: JSON.stringify({ sms_quiet_hours: null }),
  })
  t.equal(quiet.status, 200)
  const trackers = Array.from({ length: 12 }, (_, i) => ({
    order_number: `K-${i}`,
    tracking_number: `TN-K${i}`,
    phone: `+336123456${String(i).padStart(2, '0')}`,
  }))
  t.equal(
    (
      await service.call('/v1/trackers', {
        method: 'POST',
        body: JSON.stringify({ trackers }),
      })
    ).status,
    201,
  )
  const events = trackers.map((tr) => ({
    tracking_number: tr.tracking_number,
    event_type_code: 'out_for_delivery',
    happened_at: 1_795_000_000,
  }))
  const pushed = await service.call('/v2/trackers/events', {
    method: 'POST',
    body: JSON.stringify({ events }),
  })
  t.equal(pushed.status, 201)
  await service.kill()
  t.equal(twilio.requests, 0, 'nothing was sent before the kill')

  await service.crashAndRestart()
  const sent = await twilio.waitFor(12)
  t.same(sent.map((m) => m.to).sort(), trackers.map((tr) => tr.phone).sort(), 'every customer was texted')
  await queueDrained(service, 'sms')
  await service.crashAndRestart()
  await reactionPassed(service, 'sms', pushed.headers.get('x-shiplog-position')!)
  await queueDrained(service, 'sms')
  t.equal(twilio.messages.length, 12, 'another kill and restart sends nothing again')
})
