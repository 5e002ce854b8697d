import type { FastifySchemaCompiler } from 'fastify'
import type { $ZodType } from 'zod/v4/core'
import { parseRequestPart, RequestValidationError } from '../request-issues.ts'

/** fastify's validator for every route's zod schemas. */
export const validatorCompiler: FastifySchemaCompiler<$ZodType> =
  ({ schema, httpPart }) =>
  (data) => {
    const result = parseRequestPart(schema, data)
    if (result.success) return { value: result.data }
    return { error: new RequestValidationError(result.error.issues, httpPart ?? 'body', data) }
  }
