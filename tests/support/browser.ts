import { existsSync } from 'node:fs'
import { chromium, type Browser } from 'playwright-core'
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
