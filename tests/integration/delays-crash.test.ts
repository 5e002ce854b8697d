import t from 'tap'
import { crashableService, serviceEnvironment } from '../support/process.ts'
import { delaySweepsPassed, until } from '../support/progress.ts'

/*
 * No deadline missed, none acted on twice, when the service is killed: the
 * trackers are recorded by a service without its worker role (no sweep),
 * it is killed with SIGKILL, and the restarted service finds in the index
 * the parcels whose promise passed meanwhile; a second kill and restart
 * tells no customer again.
 */
t.test('deadlines passed while the service was down are acted on after a kill -9, once each', async (t) => {
  const env = await serviceEnvironment(t, { SHIPLOG_DELAY_SWEEP_INTERVAL: '1' })
  const service = await crashableService(t, env)
  const promise = new Date(Date.now() - 3 * 86_400_000).toISOString()
  const trackers = Array.from({ length: 20 }, (_, i) => ({
    order_number: `K-${i}`,
    tracking_number: `TN-K${i}`,
    email: `k${i}@example.com`,
    address_country: 'FR',
    expected_delivery_at: promise,
  }))
  const created = await service.call('/v1/trackers', { method: 'POST', body: JSON.stringify({ trackers }) })
  t.equal(created.status, 201)
  const list = async (query: string) =>
    ((await (await service.call(`/v2/trackers?limit=100&${query}`)).json()) as { data: any[] }).data
  await until(
    () => list(''),
    (data) => data.length === 20,
  )
  t.same(await list('delay_status=any'), [], 'no sweep without the worker role')
  await service.kill()

  await service.crashAndRestart()
  const late = await until(
    () => list('delay_status=late&expand[]=notifications.notification_type'),
    (data) => data.length === 20,
  )
  const told = (data: any[]) =>
    data.flatMap((tr) => tr.notifications.data.map((n: any) => n.notification_type.slug)).filter((s) => s === 'delayed')
  t.equal(told(late).length, 20, 'each customer told once')

  await service.crashAndRestart()
  await delaySweepsPassed(service)
  const again = await list('delay_status=late&expand[]=notifications.notification_type')
  t.equal(told(again).length, 20, 'no customer told twice')
})
