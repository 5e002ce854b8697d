import { z } from 'zod'
import { delayStatuses } from '../../shared/domain/events/order-events.ts'
import type { Condition } from '../../shared/infra/read-store/port.ts'

const values = [...delayStatuses, 'any'] as const
const value = z.enum(values, { error: `must be one of ${values.join(', ')}` })

/** `delay_status=late`, several (`delay_status=late&delay_status=stalled`), or `any`: the delayed ones, by status. */
export const delayStatusQuery = z
  .union([value, z.array(value).min(1)])
  .optional()
  .meta({ description: `${values.join(', ')}; several allowed (any of them)` })

/** The index condition a `delay_status` filter makes, on the field the index keeps it in. */
export function delayConditions(filter: z.output<typeof delayStatusQuery>): Condition[] {
  if (filter === undefined) return []
  const asked = new Set(Array.isArray(filter) ? filter : [filter])
  const statuses = asked.has('any') ? delayStatuses : delayStatuses.filter((s) => asked.has(s))
  return [{ field: 'delay_status', op: 'in', values: statuses }]
}
