import Handlebars from 'handlebars'

/*
 * The analytics charts, drawn on the server as SVG: no script, no library
 * to serve, and the same figures as the table under each. Drawn 320 units
 * wide so a phone shows them at their size; series differ by dash and
 * label, never by colour alone.
 */

const WIDTH = 320
const escaped = Handlebars.escapeExpression
const DASHES = ['', '6 3', '2 3', '8 3 2 3', '1 5']
const TONES = ['#1d4ed8', '#b45309', '#047857', '#7c3aed', '#be123c']

/** One line per series over the same x labels; a null value is a gap, not a zero. */
export function lineChart(chart: {
  label: string
  x: readonly string[]
  series: readonly { name: string; values: readonly (number | null)[] }[]
  /** The y axis runs from 0 to this. */
  max: number
  format: (value: number) => string
}): string {
  const left = 44
  const right = 74
  const top = 10
  const height = 190
  const plotW = WIDTH - left - right
  const plotH = height - top - 30
  const xAt = (i: number) => left + (chart.x.length <= 1 ? plotW / 2 : (i * plotW) / (chart.x.length - 1))
  const yAt = (v: number) => top + plotH - (Math.min(v, chart.max) / chart.max) * plotH
  const grid = [0, 0.5, 1]
    .map((f) => {
      const y = yAt(chart.max * f)
      return `<line x1="${left}" x2="${left + plotW}" y1="${y}" y2="${y}" class="grid"/><text x="${left - 4}" y="${y + 4}" text-anchor="end">${escaped(chart.format(chart.max * f))}</text>`
    })
    .join('')
  const step = Math.max(1, Math.ceil(chart.x.length / 4))
  const ticks = chart.x
    .map((label, i) =>
      i % step === 0 || i === chart.x.length - 1
        ? `<text x="${xAt(i)}" y="${top + plotH + 16}" text-anchor="middle">${escaped(label)}</text>`
        : '',
    )
    .join('')
  // Each series is named at its last figure; names that would overlap are moved apart.
  const lastValues = chart.series.map((s) => s.values.findLast((v) => v !== null) ?? undefined)
  const spread = spreadApart(
    lastValues.flatMap((v) => (v === undefined ? [] : [yAt(v) + 4])),
    LABEL_GAP,
    top + 4,
    height - 4,
  )
  const labelYs = lastValues.map((v) => (v === undefined ? undefined : spread.shift()))
  const lines = chart.series
    .map((s, n) => {
      const segments: string[] = []
      let path = ''
      s.values.forEach((v, i) => {
        if (v === null) {
          if (path) segments.push(path)
          path = ''
          return
        }
        path += `${path ? 'L' : 'M'}${xAt(i).toFixed(1)},${yAt(v).toFixed(1)}`
      })
      if (path) segments.push(path)
      const tone = TONES[n % TONES.length]
      const dash = DASHES[n % DASHES.length]
      const labelY = labelYs[n]
      const label =
        labelY === undefined
          ? ''
          : `<text x="${left + plotW + 6}" y="${labelY.toFixed(1)}" fill="${tone}">${escaped(s.name)}</text>`
      const dots = s.values
        .map((v, i) => (v === null ? '' : `<circle cx="${xAt(i)}" cy="${yAt(v)}" r="2.5" fill="${tone}"/>`))
        .join('')
      return `<g><path d="${segments.join('')}" fill="none" stroke="${tone}" stroke-width="2"${dash ? ` stroke-dasharray="${dash}"` : ''}/>${dots}${label}</g>`
    })
    .join('')
  return svg(chart.label, height, `${grid}${ticks}${lines}`)
}

/** The least distance between two lines' names: the charts' text is 13px on a 320-unit drawing at up to 440px. */
const LABEL_GAP = 12

/**
 * Positions as near as they can be to those asked for, in the same order,
 * each at least `gap` from the others and all within `min`..`max`: pushed
 * down past the one above, then, where the bottom is passed, back up.
 */
export function spreadApart(wanted: readonly number[], gap: number, min: number, max: number): number[] {
  const order = wanted.map((y, i) => ({ y: Math.min(Math.max(y, min), max), i })).sort((a, b) => a.y - b.y)
  for (let k = 1; k < order.length; k++) order[k]!.y = Math.max(order[k]!.y, order[k - 1]!.y + gap)
  for (let k = order.length - 1; k >= 0; k--) {
    const below = k === order.length - 1 ? max : order[k + 1]!.y - gap
    order[k]!.y = Math.min(order[k]!.y, below)
  }
  const placed: number[] = []
  for (const { y, i } of order) placed[i] = y
  return placed
}

/** Horizontal bars, one row per label: a solid bar to `value`, and a lighter one on to `upTo` where given (p50 → p90). */
export function barChart(chart: {
  label: string
  rows: readonly { label: string; value: number | null; upTo?: number | null; text: string }[]
  max: number
}): string {
  const left = 104
  const row = 26
  const height = Math.max(1, chart.rows.length) * row + 8
  const plotW = WIDTH - left - 8
  const widthOf = (v: number) => (Math.min(v, chart.max) / (chart.max || 1)) * plotW * 0.45
  const bars = chart.rows
    .map((r, i) => {
      const y = 4 + i * row
      const solid = r.value === null ? 0 : widthOf(r.value)
      const faint = r.upTo == null ? 0 : Math.max(0, widthOf(r.upTo) - solid)
      return [
        `<text x="${left - 6}" y="${y + 15}" text-anchor="end">${escaped(r.label.length > 14 ? `${r.label.slice(0, 13)}…` : r.label)}</text>`,
        `<rect x="${left}" y="${y + 4}" width="${solid.toFixed(1)}" height="14" class="bar"/>`,
        faint > 0
          ? `<rect x="${(left + solid).toFixed(1)}" y="${y + 4}" width="${faint.toFixed(1)}" height="14" class="bar-faint"/>`
          : '',
        `<text x="${(left + solid + faint + 4).toFixed(1)}" y="${y + 15}">${escaped(r.text)}</text>`,
      ].join('')
    })
    .join('')
  return svg(chart.label, height, bars)
}

const svg = (label: string, height: number, body: string) =>
  `<svg class="chart" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escaped(label)}" xmlns="http://www.w3.org/2000/svg">${body}</svg>`
