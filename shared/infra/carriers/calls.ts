import type { TrackingApi } from '../../domain/carriers/tracking-apis.ts'
import { nextUtcDay } from '../../domain/time.ts'
import type { CarrierLedger } from './ledger.ts'
import type { BatchResult, CarrierApiAdapter, CarrierTrackingApi, Parcel, TrackResult } from './port.ts'

/*
 * A carrier API as the poller asks it: one tracking number at a time, the
 * numbers asked within a few milliseconds of each other sent in one call
 * where the API takes several (FedEx 30, GLS 10), each call taken from the
 * day's budget first and counted by outcome.
 */

/** How long a call waits for more numbers to carry. */
const GATHER_MS = 20

export interface CarrierLimits {
  perDay: number | null
}

/** Calls by API and outcome since the process started, for /metrics. */
export type CarrierRequestCounts = Map<string, number>

export function carrierCalls(
  adapter: CarrierApiAdapter,
  limits: CarrierLimits,
  ledger: CarrierLedger,
  counts: CarrierRequestCounts,
  now: () => number = Date.now,
): CarrierTrackingApi {
  const name: TrackingApi = adapter.name
  const count = (outcome: string) => counts.set(`${name}|${outcome}`, (counts.get(`${name}|${outcome}`) ?? 0) + 1)
  let gathering: { parcels: Parcel[]; result: Promise<BatchResult> } | undefined

  const send = async (parcels: Parcel[]): Promise<BatchResult> => {
    if (!(await ledger.take(name, limits.perDay))) {
      count('over_budget')
      // A spent budget is whole again at the next UTC midnight.
      return { kind: 'rate_limited', retryAfterMs: nextUtcDay(now() / 1000) * 1000 - now() }
    }
    const result = await adapter.trackMany(parcels)
    count(result.kind)
    if (result.kind === 'failed' || result.kind === 'unauthorized' || result.kind === 'rate_limited') {
      const message =
        result.kind === 'failed' ? result.error : result.kind === 'unauthorized' ? result.message : 'answered 429'
      await ledger.fault(name, message)
    }
    return result
  }

  const ask = (parcel: Parcel) => {
    if (adapter.perCall === 1) return send([parcel])
    if (!gathering || gathering.parcels.length >= adapter.perCall) {
      const parcels: Parcel[] = []
      const result = new Promise<void>((resolve) => setTimeout(resolve, GATHER_MS)).then(() => {
        if (gathering?.parcels === parcels) gathering = undefined
        return send(parcels)
      })
      gathering = { parcels, result }
    }
    gathering.parcels.push(parcel)
    return gathering.result
  }

  return {
    name,
    perCall: adapter.perCall,
    async track(trackingNumber, carrierCode): Promise<TrackResult> {
      const result = await ask({ trackingNumber, carrierCode })
      if (result.kind !== 'found') return result
      const events = result.byNumber.get(trackingNumber)
      return events ? { kind: 'found', events } : { kind: 'unknown' }
    },
  }
}
