import t from 'tap'
import {
  decidePayloadOutcome,
  evolvePayloadStates,
  type PayloadEvent,
} from '../../shared/domain/notifications/payload-outcomes.ts'
import { notificationTypes } from '../../shared/domain/notifications/types.ts'
import { specOf } from '../support/decider.ts'

const payloads = specOf({ decide: decidePayloadOutcome, evolve: evolvePayloadStates })

const built: PayloadEvent = {
  type: 'NotificationBuilt',
  data: {
    tracker_id: 3,
    at: 100,
    notification: {
      id: 10,
      created_at: 100,
      language_code: 'en',
      notification_type: notificationTypes.delivered,
      notification_payloads: [
        { id: 11, created_at: 100, dispatched: false, status: 'built', error: null, type: 'email', support_cced: null },
      ],
    },
  },
}
const outcome = (error?: string) => ({
  type: 'RecordPayloadOutcome' as const,
  data: { notification_id: 10, payload_id: 11, tracker_id: 3, ...(error ? { error } : {}), at: 200 },
})

t.test('a built payload that was sent is recorded dispatched', async (t) => {
  payloads([built])
    .when(outcome())
    .thenEvents(t, [
      { type: 'NotificationPayloadDispatched', data: { notification_id: 10, payload_id: 11, tracker_id: 3, at: 200 } },
    ])
})

t.test('a built payload given up on is recorded failed, with the reason', async (t) => {
  payloads([built])
    .when(outcome('550 mailbox unavailable'))
    .thenEvents(t, [
      {
        type: 'NotificationPayloadFailed',
        data: { notification_id: 10, payload_id: 11, tracker_id: 3, error: '550 mailbox unavailable', at: 200 },
      },
    ])
})

t.test('a payload already settled, or unknown, records nothing', async (t) => {
  const dispatched: PayloadEvent = {
    type: 'NotificationPayloadDispatched',
    data: { notification_id: 10, payload_id: 11, tracker_id: 3, at: 150 },
  }
  payloads([built, dispatched]).when(outcome()).thenEvents(t, [], 'a second sender of a sent payload')
  payloads([built, dispatched]).when(outcome('timeout')).thenEvents(t, [], 'a late failure of a sent payload')
  payloads([]).when(outcome()).thenEvents(t, [], 'a payload never built')
})

const report = (delivered: boolean, error?: string) => ({
  type: 'RecordDeliveryReport' as const,
  data: {
    notification_id: 10,
    payload_id: 11,
    tracker_id: 3,
    delivered,
    ...(error ? { error } : {}),
    provider_message_id: 'SM1',
    to: '+33612345678',
    at: 300,
  },
})
const ids = { notification_id: 10, payload_id: 11, tracker_id: 3 }
const sent: PayloadEvent = {
  type: 'NotificationPayloadDispatched',
  data: { ...ids, provider_message_id: 'SM1', to: '+33612345678', at: 200 },
}

t.test('a sent SMS records its provider id and phone', async (t) => {
  payloads([built])
    .when({ ...outcome(), data: { ...outcome().data, provider_message_id: 'SM1', to: '+33612345678' } })
    .thenEvents(t, [sent])
})

t.test('a delivery report on a sent payload records what became of it, once', async (t) => {
  payloads([built, sent])
    .when(report(true))
    .thenEvents(t, [{ type: 'NotificationPayloadReported', data: { ...ids, status: 'delivered', at: 300 } }])
  payloads([built, sent])
    .when(report(false, 'the provider reported undelivered (error 30003)'))
    .thenEvents(t, [
      {
        type: 'NotificationPayloadReported',
        data: { ...ids, status: 'undelivered', error: 'the provider reported undelivered (error 30003)', at: 300 },
      },
    ])
  payloads([built, sent, { type: 'NotificationPayloadReported', data: { ...ids, status: 'delivered', at: 300 } }])
    .when(report(true))
    .thenEvents(t, [], 'a report told twice records nothing')
})

t.test('a report before the send is recorded is the send and the report', async (t) => {
  payloads([built])
    .when(report(true))
    .thenEvents(t, [
      {
        type: 'NotificationPayloadDispatched',
        data: { ...ids, provider_message_id: 'SM1', to: '+33612345678', at: 300 },
      },
      { type: 'NotificationPayloadReported', data: { ...ids, status: 'delivered', at: 300 } },
    ])
})

t.test('a failed payload takes no report', async (t) => {
  payloads([built, { type: 'NotificationPayloadFailed', data: { ...ids, error: 'x', at: 200 } }])
    .when(report(true))
    .thenEvents(t, [])
})
