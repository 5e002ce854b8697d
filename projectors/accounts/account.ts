import type { z } from 'zod'
import { DEFAULT_DELAY_RULES } from '../../shared/domain/delivery/delays.ts'
import { DEFAULT_QUIET_HOURS } from '../../shared/domain/notifications/quiet-hours.ts'
import { channelsOf } from '../../shared/domain/notifications/channels.ts'
import type { accountResource } from '../resources/schemas.ts'
import { assertNever } from '../../shared/domain/events/index.ts'
import type { AccountEvent } from '../../shared/domain/accounts/account.ts'
import type { AccountDoc } from '../../shared/infra/accounts/account-doc.ts'

export type { AccountDoc }

/** A deleted account keeps its document, with hashes no key can have, so its keys find nothing. */
const revoked = (id: number) => `revoked:${id}`

export function evolveAccount(doc: AccountDoc | undefined, event: AccountEvent): AccountDoc {
  if (event.type === 'AccountCreated') {
    const d = event.data
    return {
      id: d.account_id,
      name: d.name,
      language_code: d.language_code,
      created_at: d.at,
      updated_at: d.at,
      private_key_hash: d.private_key.hash,
      public_key_hash: d.public_key.hash,
      deleted: false,
    }
  }
  if (!doc) throw new Error(`${event.type} before AccountCreated`)
  const updated_at = event.data.at
  switch (event.type) {
    case 'AccountUpdated':
      return { ...doc, ...event.data.changes, updated_at }
    case 'AccountKeysRotated':
      return {
        ...doc,
        private_key_hash: event.data.private_key.hash,
        public_key_hash: event.data.public_key.hash,
        updated_at,
      }
    case 'AccountDeleted':
      return { ...doc, private_key_hash: revoked(doc.id), public_key_hash: revoked(doc.id), deleted: true, updated_at }
    default:
      return assertNever(event)
  }
}

/** The account resource: what GET and PATCH /v2/account answer (never a key). */
export const renderAccount = (a: AccountDoc): z.output<typeof accountResource> => ({
  object: 'account',
  id: a.id,
  name: a.name,
  language_code: a.language_code,
  sms_quiet_hours: a.sms_quiet_hours === undefined ? DEFAULT_QUIET_HOURS : a.sms_quiet_hours,
  delay_rules: delayRulesOf(a),
  time_zone: timeZoneOf(a),
  created_at: a.created_at,
  updated_at: a.updated_at,
})

/** The time zone of an account that never chose one. */
export const ACCOUNT_TIME_ZONE = 'UTC'
/** The IANA time zone the console shows the account's times and days in. */
export const timeZoneOf = (a: Pick<AccountDoc, 'time_zone'>) => a.time_zone ?? ACCOUNT_TIME_ZONE

/** The account's delay rules: the defaults until it changes them. */
export const delayRulesOf = (a: Pick<AccountDoc, 'delay_rules'>) => a.delay_rules ?? DEFAULT_DELAY_RULES

/** A notification type's settings in an account: on or off, and its channels. */
export const notificationSettingsOf = (
  account: Pick<AccountDoc, 'disabled_notification_types' | 'notification_channels'>,
  slug: string,
) => ({
  enabled: !(account.disabled_notification_types ?? []).includes(slug),
  channels: channelsOf(slug, account.notification_channels),
})
