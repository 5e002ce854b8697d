import type { EventData } from '../../shared/domain/events/index.ts'

/** An account as the accounts read model keeps it: what a request's key is checked against. */
export interface AccountDoc {
  id: number
  name: string
  language_code: string
  created_at: number
  private_key_hash: string
  public_key_hash: string
}

export const evolveAccount = (data: EventData<'AccountCreated'>): AccountDoc => ({
  id: data.account_id,
  name: data.name,
  language_code: data.language_code,
  created_at: data.at,
  private_key_hash: data.private_key.hash,
  public_key_hash: data.public_key.hash,
})
