import t from 'tap'
import { barChart, lineChart, spreadApart } from '../../console/charts.ts'

/* The console's SVG charts: what a reader is told is what the figures say. */

t.test('a line chart leaves a gap for a week without figures, and escapes every label', async (t) => {
  const svg = lineChart({
    label: 'On time <by week>',
    x: ['W1', 'W2', 'W3', 'W4'],
    series: [{ name: 'dhl & co', values: [0.9, null, 0.5, 0.7] }],
    max: 1,
    format: (v) => `${v * 100} %`,
  })
  const path = /<path d="([^"]+)"/.exec(svg)![1]!
  t.equal(path.match(/M/g)!.length, 2, 'two segments: the missing week is a gap, not a zero')
  t.equal(svg.match(/<circle/g)!.length, 3, 'a point per figure')
  t.match(svg, 'aria-label="On time &lt;by week&gt;"')
  t.match(svg, 'dhl &amp; co', 'the series is labelled beside its line')
  t.notMatch(svg, '<by week>')
})

t.test('lines ending at the same figure are named apart, each name still by its line', async (t) => {
  const svg = lineChart({
    label: 'On time',
    x: ['W1', 'W2'],
    series: [
      { name: 'colissimo', values: [0.5, 1] },
      { name: 'dhl', values: [1, 2 / 3] },
      { name: 'ups', values: [0.5, 2 / 3] },
    ],
    max: 1,
    format: (v) => `${v * 100} %`,
  })
  const names = new Map(
    [...svg.matchAll(/<text x="[\d.]+" y="([\d.]+)" fill="[^"]+">(\w+)<\/text>/g)].map((m) => [m[2]!, Number(m[1])]),
  )
  t.same([...names.keys()], ['colissimo', 'dhl', 'ups'])
  t.ok(Math.abs(names.get('dhl')! - names.get('ups')!) >= 12, 'dhl and ups, both at 67 %, do not overlap')
  t.ok(names.get('colissimo')! < names.get('dhl')!, 'colissimo, at 100 %, stays above them')
})

t.test('spreadApart keeps wanted places that are far enough apart, and moves the rest the least it can', async (t) => {
  t.same(spreadApart([50, 10, 90], 12, 0, 100), [50, 10, 90], 'given places 40 apart: unchanged, in their order')
  t.same(spreadApart([40, 40], 12, 0, 100), [40, 52], 'given two at one place: the second goes below the first')
  t.same(spreadApart([98, 99], 12, 0, 100), [88, 100], 'given two at the bottom: both kept within it')
  t.same(spreadApart([], 12, 0, 100), [], 'given none: none')
})

t.test('a bar chart draws a row per figure, the p90 as a lighter bar on from the p50', async (t) => {
  const svg = barChart({
    label: 'Transit',
    max: 6,
    rows: [
      { label: 'dhl → DE', value: 2, upTo: 6, text: '2–6 d' },
      { label: 'ups → IT', value: 3, text: '3 d' },
    ],
  })
  const widths = [...svg.matchAll(/<rect[^>]*width="([\d.]+)"/g)].map((m) => Number(m[1]))
  t.equal(widths.length, 3, 'two bars and one p90')
  t.equal(widths[1]! / widths[0]!, 2, 'the p90 bar runs on from the p50 to 6 days')
  t.match(svg, '2–6 d')
  t.match(svg, 'ups → IT')
})
