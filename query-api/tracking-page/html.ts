import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import Handlebars from 'handlebars'
import { wordsOf } from '../../shared/infra/words/catalogue.ts'
import { type NotificationLanguage, notificationLanguages } from '../../shared/domain/notifications/languages.ts'
import {
  brandColorsOf,
  defaultTrackingPage,
  type TrackingPageSettings,
} from '../../shared/domain/tracking-page/settings.ts'
import { pagePhrase, type TrackingPageData } from './page.ts'
import type { RenderedPage } from '../../shared/infra/http/html-page.ts'

/*
 * The tracking page's HTML, from the templates beside this file: Handlebars
 * escapes every value. The page runs no script; its only inline code is the
 * account's brand style sheet, allowed by its hash in the page's
 * Content-Security-Policy.
 */

const file = (name: string) => readFileSync(new URL(name, import.meta.url), 'utf8')
const pages = Handlebars.create()
pages.registerPartial('layout', file('./templates/layout.html.hbs'))
const templates = {
  page: pages.compile(file('./templates/page.html.hbs'), { strict: false }),
  lookup: pages.compile(file('./templates/lookup.html.hbs'), { strict: false }),
  notFound: pages.compile(file('./templates/not-found.html.hbs'), { strict: false }),
}

/** The page's style sheet, served with a long cache: its address changes with its content. */
export const stylesheet = (() => {
  const body = file('./assets/tracking-page.css')
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"`
  return { body, etag, path: `/track/assets/tracking-page.css?v=${etag.slice(1, 9)}` }
})()

const languageNames: Record<NotificationLanguage, string> = {
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  es: 'Español',
  it: 'Italiano',
  nl: 'Nederlands',
}

export type { RenderedPage }

interface Chrome {
  language: NotificationLanguage
  settings: TrackingPageSettings
  brandName: string | null
  /** The page's address without its language, for the language links. */
  path: string
}

export function renderTrackingPage(data: TrackingPageData, settings: TrackingPageSettings, path: string): RenderedPage {
  const words = wordsOf(data.language)
  const chrome = { language: data.language, settings, brandName: data.brand.name, path }
  const count = data.parcels.length
  const c = data.customer
  const shipTo = [
    [c.first_name, c.last_name].filter(Boolean).join(' '),
    c.address1,
    c.address2,
    [c.zip, c.city].filter(Boolean).join(' '),
  ].filter((line): line is string => Boolean(line))
  return render(chrome, 'page', pagePhrase(words, 'title', data), {
    page: data,
    heading: pagePhrase(words, 'heading', data),
    intro: c.first_name ? pagePhrase(words, 'intro', c) : words.page.intro_anonymous,
    parcels: data.parcels.map((p, i) => ({
      ...p,
      title: pagePhrase(words, 'parcel', { number: i + 1, count }),
      steps: p.steps.map((s) => ({ ...s, current: s.state === 'current' })),
    })),
    shipTo: shipTo.length > 0 ? shipTo : null,
  })
}

export interface LookupForm {
  account: number | undefined
  orderNumber: string
  contact: string
  notFound: boolean
}

export const renderLookupPage = (chrome: Chrome, form: LookupForm): RenderedPage =>
  render(chrome, 'lookup', wordsOf(chrome.language).page.lookup_title as string, form)

export const renderNotFoundPage = (language: NotificationLanguage, path: string): RenderedPage =>
  render(
    { language, settings: defaultTrackingPage, brandName: null, path },
    'notFound',
    wordsOf(language).page.not_found_title as string,
    {},
  )

function render(chrome: Chrome, template: keyof typeof templates, title: string, values: object): RenderedPage {
  const { language, settings } = chrome
  const brandStyle = brandStyleOf(settings)
  const html = templates[template]({
    ...values,
    title,
    language,
    words: wordsOf(language).page,
    stylesheet: stylesheet.path,
    brandStyle,
    brand: { ...settings, name: chrome.brandName },
    support: Boolean(settings.support_email || settings.support_url),
    languages: notificationLanguages.map((code) => ({
      code,
      name: languageNames[code],
      href: `${chrome.path}${chrome.path.includes('?') ? '&' : '?'}lang=${code}`,
      current: code === language,
    })),
  })
  return { html, policy: contentSecurityPolicy(brandStyle) }
}

/** The brand colour (with a text colour that reads on it) and the account's own CSS, if it set any. */
function brandStyleOf(settings: TrackingPageSettings): string | null {
  const { brand, onBrand } = brandColorsOf(settings)
  const colors = settings.primary_color ? `:root{--brand:${brand};--on-brand:${onBrand}}` : ''
  const style = `${colors}${settings.custom_css ?? ''}`
  return style === '' ? null : style
}

/**
 * Nothing but the page's own style sheet, its hashed brand style, images
 * over https (the logo, the items) and forms to itself: no script at all.
 */
function contentSecurityPolicy(brandStyle: string | null): string {
  const hash = brandStyle ? ` 'sha256-${createHash('sha256').update(brandStyle).digest('base64')}'` : ''
  return [
    "default-src 'none'",
    `style-src 'self'${hash}`,
    "img-src 'self' https:",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ')
}
