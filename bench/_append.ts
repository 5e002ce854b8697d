import { randomUUID } from 'node:crypto'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createSqliteEventStore } from '../shared/event-store/sqlite.ts'
const store = createSqliteEventStore(join(mkdtempSync(join(tmpdir(), 'ap-')), 'e.db'))
const metadata = { accountId: 1, correlationId: 'x', recordedAt: Date.now() }
const data = { tracker_id: 244222873165826, uuid: randomUUID(), fulfillment_id: 244222873165825, tracking_number: '1Z999AA10123456784', at: 1795314324, changes: { carrier: { code: 'ups', name: 'UPS' }, tracking_link: 'https://wwwapps.ups.com/WebTracking/track?track=yes&trackNums=1Z999AA10123456784' } }
for (let round = 0; round < 10; round++) {
  const reqs = Array.from({ length: 500 }, (_, i) => ({ stream: `order-1_${round}_${i}`, expected: 'no_stream' as const, events: Array.from({ length: 6 }, () => ({ id: randomUUID(), type: 'TrackerCreated', data, metadata })) }))
  const t = performance.now()
  await store.append(reqs)
  console.log(`3000 events: ${(performance.now() - t).toFixed(1)} ms`)
}
