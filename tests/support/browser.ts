import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { chromium, type Browser, type Page } from 'playwright-core'
import type { Test } from 'tap'

/*
 * Debian's Chromium, driven by playwright-core (never a downloaded browser).
 * The test command installs the package when it is missing and it can; where
 * it cannot, the browser tests skip with this reason.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export const browserSkip = (): string | false =>
  existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM}: apt-get install chromium (or set CHROMIUM_PATH)`

/** A headless Chromium for one test file, closed when it ends. */
export async function startBrowser(t: Test): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
    ],
  })
  t.teardown(() => browser.close())
  return browser
}

const axeSource = readFileSync(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url), 'utf8')

/** axe-core's serious and critical violations on the page (its context must bypass the page's CSP to run axe). */
export async function axeViolations(page: Page) {
  await page.evaluate(axeSource)
  // Run in the page, where axe, document and window are; this file is compiled without the DOM's types.
  const result = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as { violations: unknown }
  return (result.violations as { id: string; impact: string; help: string }[]).filter(
    (v) => v.impact === 'serious' || v.impact === 'critical',
  )
}

/** Keeps a screenshot, at this size, when SHIPLOG_SCREENSHOTS names a folder (docs/images/ has the README's). */
export async function keep(page: Page, name: string, viewport: { width: number; height: number }) {
  const folder = process.env.SHIPLOG_SCREENSHOTS
  if (!folder) return
  mkdirSync(folder, { recursive: true })
  await page.setViewportSize(viewport)
  await page.screenshot({ path: `${folder}/${name}`, fullPage: true })
}

/** How wide the page's content is against the screen: no sideways scrolling when the first is not larger. */
export const widthsOf = async (page: Page) =>
  (await page.evaluate('({ content: document.documentElement.scrollWidth, screen: window.innerWidth })')) as {
    content: number
    screen: number
  }
