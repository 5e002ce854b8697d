#!/usr/bin/env node
// npm run build: the service as JavaScript in dist/, which `npm start`, the
// shiplog command and the container image run. `--if-stale`: only when a
// source changed since the last build (`npm start` asks so).
import { spawnSync } from 'node:child_process'
import { cpSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BUILT_STAMP, distIsFresh } from '../shared/infra/compiled.mjs'

process.chdir(fileURLToPath(new URL('..', import.meta.url)))
if (process.argv.includes('--if-stale') && distIsFresh('.')) process.exit(0)
const started = new Date()
console.error('shiplog: compiling the TypeScript sources into dist/')
rmSync('dist', { recursive: true, force: true })
const tsc = spawnSync('node_modules/.bin/tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit' })
if (tsc.status !== 0) process.exit(tsc.status ?? 1)
// The worker threads' plain JavaScript entries, the templates, the words' catalogues and the tracking page's and the console's assets, and the version the CLI reads.
const copyEntries = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) copyEntries(path)
    else if (
      name.endsWith('.mjs') ||
      dir.endsWith('templates') ||
      dir.endsWith('assets') ||
      (dir.endsWith('words') && name.endsWith('.json'))
    )
      cpSync(path, join('dist', path))
  }
}
for (const dir of ['shared', 'projectors', 'reactions', 'query-api', 'console']) copyEntries(dir)
cpSync('package.json', 'dist/package.json')
// Dated when the build started: a source saved during the build is newer, and the next start builds again.
writeFileSync(BUILT_STAMP, '')
utimesSync(BUILT_STAMP, started, started)
