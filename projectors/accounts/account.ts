import type { EventData } from '../../shared/domain/events/index.ts'
import { generateKey, hashKey, keyId, type KeyKind } from '../../shared/infra/accounts/keys.ts'

export interface AccountDoc {
  id: number
  name: string
  language_code: string
  created_at: number
  private_key_hash: string
  public_key_hash: string
}

export const accountStream = (accountId: number) => `account-${accountId}`

export interface NewAccount {
  event: EventData<'AccountCreated'>
  /** Shown once, never stored. */
  keys: Record<KeyKind, string>
}

export function createAccount(input: { id: number; name: string; now: number; language_code?: string }): NewAccount {
  const keys = { private: generateKey('private'), public: generateKey('public') }
  const hashes = { private: hashKey(keys.private), public: hashKey(keys.public) }
  return {
    keys,
    event: {
      account_id: input.id,
      name: input.name,
      language_code: input.language_code ?? 'en',
      private_key: { id: keyId(hashes.private), hash: hashes.private },
      public_key: { id: keyId(hashes.public), hash: hashes.public },
      at: input.now,
    },
  }
}

export const evolveAccount = (data: EventData<'AccountCreated'>): AccountDoc => ({
  id: data.account_id,
  name: data.name,
  language_code: data.language_code,
  created_at: data.at,
  private_key_hash: data.private_key.hash,
  public_key_hash: data.public_key.hash,
})
