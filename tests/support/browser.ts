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

/**
 * How wide the page's content is against the screen it was given: no
 * sideways scrolling when the first is not larger. The screen is the
 * viewport set, not window.innerWidth, which a phone's emulation widens to
 * fit content too wide for it.
 */
export const widthsOf = async (page: Page) => ({
  content: (await page.evaluate('document.documentElement.scrollWidth')) as number,
  screen: page.viewportSize()!.width,
})

/**
 * The words the page shows broken across two lines: each word of each text
 * node measured by a Range, split when its boxes stand on different lines.
 * Run in the page (this file is compiled without the DOM's types).
 */
export const splitWords = async (page: Page) =>
  (await page.evaluate(`(() => {
    const split = []
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const text = node.textContent
      for (const match of text.matchAll(/\\S+/g)) {
        const range = document.createRange()
        range.setStart(node, match.index)
        range.setEnd(node, match.index + match[0].length)
        const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top)))
        if (tops.size > 1) split.push(match[0])
      }
    }
    return split
  })()`)) as string[]
