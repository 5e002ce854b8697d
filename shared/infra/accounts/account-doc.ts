import type { TrackingPageSettings } from '../../domain/tracking-page/settings.ts'

/**
 * The accounts read model's document: what every request's key is checked
 * against at the HTTP edge, so it is declared here, below the projector that
 * folds it (projectors/accounts/account.ts).
 */
export interface AccountDoc {
  id: number
  name: string
  language_code: string
  created_at: number
  updated_at: number
  private_key_hash: string
  public_key_hash: string
  deleted: boolean
  /** Absent on documents projected before notification types could be turned off. */
  disabled_notification_types?: string[]
  /** Absent until the account first changes its tracking page. */
  tracking_page?: TrackingPageSettings
}
