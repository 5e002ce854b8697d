import { z } from 'zod'
import { EXPAND_VALUES } from '../../shared/infra/http/openapi.ts'

/**
 * `expand[]` of a route whose resource expands these paths: one value or
 * several, checked by `Expansion.parse` (whose 400 lists what is allowed).
 * The document lists every value it takes, each path and the levels above
 * it, so a generated client can offer them.
 */
export const expandQuery = (allowed: readonly string[]) =>
  z
    .union([z.string(), z.array(z.string())])
    .optional()
    .meta({ [EXPAND_VALUES]: [...new Set(allowed.flatMap(withLevelsAbove))].sort() })

const withLevelsAbove = (path: string) => path.split('.').map((_, i, parts) => parts.slice(0, i + 1).join('.'))
