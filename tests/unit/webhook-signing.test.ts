import { randomBytes } from 'node:crypto'
import t from 'tap'
import { Webhook } from 'standardwebhooks'
import { webhookSigner } from '../../shared/infra/webhooks/signing.ts'

t.test('a signature is the one the Standard Webhooks library makes, and verifies with it', async (t) => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`
  const at = new Date('2026-11-29T12:00:00.750Z')
  const body = JSON.stringify({ type: 'tracker.created', data: { note: 'Zoë → 東京' } })
  const signature = webhookSigner(secret)('msg_1', at, body)
  t.equal(signature, new Webhook(secret).sign('msg_1', at, body))
  const headers = {
    'webhook-id': 'msg_1',
    'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
    'webhook-signature': '',
  }
  headers['webhook-signature'] = webhookSigner(secret)('msg_1', new Date(), body)
  t.doesNotThrow(() => new Webhook(secret).verify(body, headers))
})

t.test('a signature depends on the id, the time, the body and the secret', async (t) => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`
  const at = new Date('2026-11-29T12:00:00Z')
  const sign = webhookSigner(secret)
  const base = sign('msg_1', at, '{}')
  t.not(sign('msg_2', at, '{}'), base)
  t.not(sign('msg_1', new Date('2026-11-29T12:00:01Z'), '{}'), base)
  t.not(sign('msg_1', at, '{ }'), base)
  t.not(webhookSigner(`whsec_${randomBytes(32).toString('base64')}`)('msg_1', at, '{}'), base)
})
