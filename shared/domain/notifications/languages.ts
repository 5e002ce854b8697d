import { z } from 'zod'
import { LANGUAGE_CODE, LANGUAGE_CODE_MESSAGE } from '../fields.ts'

/** The languages customer notifications are written in (shared/infra/words/<language>.json). */
export const notificationLanguages = ['en', 'fr', 'de', 'es', 'it', 'nl'] as const
export type NotificationLanguage = (typeof notificationLanguages)[number]

/** The language a code is written in: itself, or its base language (`fr-CA` → `fr`), when shiplog has it. */
const writtenIn = (code: string): NotificationLanguage | undefined => {
  const base = code.split('-')[0]!
  return (notificationLanguages as readonly string[]).includes(base) ? (base as NotificationLanguage) : undefined
}

/** The notification language of a language code: its own or its base language's, else English. */
export const notificationLanguageOf = (code: string): NotificationLanguage => writtenIn(code) ?? 'en'

export const NOTIFICATION_LANGUAGE_MESSAGE = `must be a language shiplog writes notifications in: ${notificationLanguages.join(', ')} (a region such as fr-CA is welcome)`

/** Whether shiplog has notifications in a language (or its base language). */
export const hasNotifications = (code: string) => LANGUAGE_CODE.test(code) && writtenIn(code) !== undefined

/** An account's default language for its customers: one shiplog writes notifications in. */
export const accountLanguage = z
  .string()
  .regex(LANGUAGE_CODE, { message: LANGUAGE_CODE_MESSAGE, abort: true })
  .refine(hasNotifications, NOTIFICATION_LANGUAGE_MESSAGE)
