import type { z } from 'zod'
import { isShiplogError, ShiplogError } from '../shared/domain/errors.ts'
import { describeIssues, parseRequestPart, RequestValidationError } from '../shared/infra/request-issues.ts'

/*
 * The console's forms check what they send with the API's own schemas, so a
 * refused value reads as the API's 400 does: one message, and one beside
 * each field it names.
 */

/** What a refused form shows: the API's message, and its words per field. */
export interface FormErrors {
  details: string
  fields: Record<string, string>
}

/** The form's values as the schema reads them, or the API's validation error for them. */
export function parsedForm<S extends z.ZodType>(schema: S, body: unknown): z.output<S> {
  const parsed = parseRequestPart(schema, body)
  if (parsed.success) return parsed.data as z.output<S>
  const { message, fields } = describeIssues(new RequestValidationError(parsed.error.issues, 'body', body))
  throw new ShiplogError('SHIPLOG_ERR_VALIDATION', message, fields)
}

/** A form's fields as the body parser gave them (none: an empty form). */
export const formOf = (request: { body?: unknown }) => (request.body ?? {}) as Record<string, unknown>

/** Where a change sends the browser back to: the page, with the message saying what was done. */
export const doneAt = (path: string, message: string) =>
  `${path}${path.includes('?') ? '&' : '?'}done=${encodeURIComponent(message)}`

/** A form field's text: trimmed, and `null` when left empty (the API's "not set"). */
export const textOrNull = (value: unknown) => {
  const text = typeof value === 'string' ? value.trim() : ''
  return text === '' ? null : text
}

/** A checkbox: present when ticked. */
export const ticked = (value: unknown) => value !== undefined && value !== ''

/** Every value of a field that may repeat (checkboxes of one name). */
export const allOf = (value: unknown): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).map(String)

/**
 * Runs a form's change; a refusal the caller can mend (a 4xx) shows the
 * form again with the API's messages, through `again`; anything else is the
 * console's error page.
 */
export async function submitted(
  change: () => Promise<unknown>,
  again: (status: number, errors: FormErrors) => unknown,
) {
  try {
    return await change()
  } catch (error) {
    if (!isShiplogError(error) || error.status >= 500) throw error
    return again(error.status, { details: error.message, fields: error.fields })
  }
}
