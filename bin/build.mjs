#!/usr/bin/env node
// npm run build: the service as JavaScript in dist/, so a container starts without compiling TypeScript.
import { spawnSync } from 'node:child_process'
import { cpSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

rmSync('dist', { recursive: true, force: true })
const tsc = spawnSync('node_modules/.bin/tsc', ['-p', 'tsconfig.build.json'], { stdio: 'inherit' })
if (tsc.status !== 0) process.exit(tsc.status ?? 1)
// The worker threads' plain JavaScript entries, the templates and the tracking page's assets, and the version the CLI reads.
const copyEntries = (dir) => {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) copyEntries(path)
    else if (name.endsWith('.mjs') || dir.endsWith('templates') || dir.endsWith('assets'))
      cpSync(path, join('dist', path))
  }
}
for (const dir of ['shared', 'projectors', 'reactions', 'query-api']) copyEntries(dir)
cpSync('package.json', 'dist/package.json')
