#!/usr/bin/env node
// npm run bench [name…]: runs each benchmark in its own process and prints its figures.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

/** Modules the benchmarks run, not benchmarks of their own. */
const helpers = ['support.ts', 'replay-stores.ts', 'fixtures.ts', 'history.ts']
const all = readdirSync(new URL('.', import.meta.url))
  .filter((f) => f.endsWith('.ts') && !helpers.includes(f))
  .map((f) => f.replace(/\.ts$/, ''))
const chosen = process.argv.length > 2 ? process.argv.slice(2) : all
// The servers and the rebuild run as `npm start` runs them: from dist/, compiled first when a source changed.
if (spawnSync(process.execPath, ['bin/build.mjs', '--if-stale'], { stdio: 'inherit' }).status !== 0) process.exit(1)
let failed = 0
for (const name of chosen) {
  console.log(`\n== bench/${name}`)
  const { status } = spawnSync(process.execPath, ['--import', 'tsx', `bench/${name}.ts`], { stdio: 'inherit' })
  if (status !== 0) failed++
}
process.exit(failed ? 1 : 0)
