#!/usr/bin/env node
// The shiplog executable: runs dist/ (the service as JavaScript, `npm run build`) where the
// TypeScript sources are absent (the container image) or SHIPLOG_RUN_COMPILED=1 says so;
// otherwise the TypeScript sources through tsx's loader.
import { existsSync } from 'node:fs'
import { setFlagsFromString } from 'node:v8'

/** Sets a V8 flag unless node was given it on its command line, which wins. */
const defaultFlag = (name, value) => {
  if (!process.execArgv.some((a) => a.startsWith(name))) setFlagsFromString(`${name}=${value}`)
}

// A service's heap should stay near the data it holds. By default V8 lets the
// old generation grow to about four times the live data between full
// collections: hundreds of MB of garbage during a large import. At 1.35 times,
// full collections come more often but stay short (docs/performance.md). The
// young generation cannot be resized once the process runs: `npm start` sizes
// it (package.json).
defaultFlag('--heap-growing-percent', 35)

// Until its first full collection a new heap lets its old generation grow to
// half its maximum (gigabytes here): the projector's thread, started with the
// server, would keep a large import's dead batches until then. From 32 MB its collections start early; after the first, the heap follows its
// live size as above. Set here, it holds for the threads the server starts.
defaultFlag('--initial-old-space-size', 32)

const source = new URL('../cli/shiplog.ts', import.meta.url)
if (process.env.SHIPLOG_RUN_COMPILED !== '1' && existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(source.href)
} else {
  await import('../dist/cli/shiplog.js')
}
