import type { EventTypeCode, ScanFirst } from '../vocabulary/tracking-codes.ts'

/**
 * What a parcel's scans have shown so far that its delivery history keeps:
 * its earliest scan naming a country (where it left from), and whether it
 * met a failed attempt and an incident.
 */
export interface ScansSeen {
  origin_at: number | null
  failed_attempt: boolean
  exception: boolean
}

/** Which of its parcel's firsts a scan is, after the scans `seen`: a scan that is none changes no delivery fact. */
export function firstsOf(
  seen: ScansSeen,
  scan: {
    event_type_code: EventTypeCode | null
    happened_at: number
    address?: { country_code?: string | null } | null
  },
): ScanFirst[] {
  const firsts: ScanFirst[] = []
  const country = scan.address?.country_code ?? null
  if (country !== null && (seen.origin_at === null || scan.happened_at < seen.origin_at)) firsts.push('origin')
  if (!seen.failed_attempt && scan.event_type_code === 'failed_attempt') firsts.push('failed_attempt')
  if (!seen.exception && scan.event_type_code === 'incident') firsts.push('incident')
  return firsts
}

/** What the scans have shown once `scan`, being the `firsts` given, is seen too. */
export function scansSeenAfter<S extends ScansSeen>(
  seen: S,
  scan: { happened_at: number },
  firsts: readonly ScanFirst[],
): S {
  if (firsts.length === 0) return seen
  return {
    ...seen,
    origin_at: firsts.includes('origin') ? scan.happened_at : seen.origin_at,
    failed_attempt: seen.failed_attempt || firsts.includes('failed_attempt'),
    exception: seen.exception || firsts.includes('incident'),
  }
}
