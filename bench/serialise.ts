/**
 * Serialising the answers: JSON.stringify against fast-json-stringify
 * compiled from the same response schemas the OpenAPI document publishes, on
 * a page of 100 orders (no expansion, and every expansion) and on a 1000-item
 * tracker upsert answer. The faster one is what the service uses.
 */
import { isDeepStrictEqual } from 'node:util'
import fastJson from 'fast-json-stringify'
import { z } from 'zod'
import { upsertTrackersResponse } from '../commands/trackers/schema.ts'
import { Expansion, orderExpandPaths } from '../projectors/resources/expansion.ts'
import { renderOrder } from '../projectors/resources/render.ts'
import { listOf, orderResource } from '../projectors/resources/schemas.ts'
import { order } from './fixtures.ts'
import { conditions } from './support.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 300)

/** Microseconds per call, the best of five runs of ROUNDS calls. */
function timePerCall(serialise: (value: unknown) => string, value: unknown) {
  let best = Number.POSITIVE_INFINITY
  for (let run = 0; run < 5; run++) {
    const start = process.hrtime.bigint()
    for (let i = 0; i < ROUNDS; i++) serialise(value)
    best = Math.min(best, Number(process.hrtime.bigint() - start) / 1000 / ROUNDS)
  }
  return best
}

const compiled = (schema: z.ZodType) => fastJson(z.toJSONSchema(schema, { io: 'output', reused: 'inline' }) as object)

const orders = Array.from({ length: 100 }, (_, i) => order(i, 10))
const page = (x: Expansion) => ({ object: 'list', has_more: true, data: orders.map((o) => renderOrder(o, x)) })
const upsert = {
  trackers: Array.from({ length: 1000 }, (_, i) => ({
    id: 1e9 + i,
    order_id: 2e9 + i,
    fulfillment_id: 3e9 + i,
    order_number: `O-${i}`,
    tracking_number: `1Z${i}`,
    created: true,
  })),
}

const cases = [
  { name: 'orders page, no expansion', value: page(Expansion.none), schema: listOf(orderResource) },
  {
    name: 'orders page, every expansion',
    value: page(Expansion.full(orderExpandPaths)),
    schema: listOf(orderResource),
  },
  { name: 'tracker upsert answer, 1000 items', value: upsert, schema: upsertTrackersResponse },
]

console.log(conditions())
for (const { name, value, schema } of cases) {
  const fast = compiled(schema)
  // The same JSON, its keys perhaps in the schema's order.
  if (!isDeepStrictEqual(JSON.parse(fast(value)), value)) throw new Error(`${name}: the two serialisations differ`)
  const plain = timePerCall(JSON.stringify, value)
  const fromSchema = timePerCall(fast, value)
  const bytes = JSON.stringify(value).length
  console.log(
    `${name} (${(bytes / 1024).toFixed(0)} KB): JSON.stringify ${plain.toFixed(0)} µs, ` +
      `fast-json-stringify ${fromSchema.toFixed(0)} µs (${(plain / fromSchema).toFixed(2)}× as fast)`,
  )
}
