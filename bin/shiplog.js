#!/usr/bin/env node
// The shiplog executable: runs dist/, the service as JavaScript (`npm run
// build`; `npm start` builds it when a source changed), where it is as fresh as
// the TypeScript sources or they are absent (the container image); otherwise
// the sources through tsx's loader, which costs every process and thread a
// second or more to start. SHIPLOG_RUN_COMPILED=1 or 0 chooses either way.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { setFlagsFromString } from 'node:v8'

/**
 * Sets a V8 flag unless node was given it on its command line (either way,
 * for a switch: `--name` or `--no-name`), which wins. `value` false turns a
 * switch off.
 */
const defaultFlag = (name, value) => {
  const given = (a) => a.startsWith(name) || a.startsWith(`--no-${name.slice(2)}`)
  if (process.execArgv.some(given)) return
  setFlagsFromString(value === false ? `--no-${name.slice(2)}` : `${name}=${value}`)
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

// V8 allocates straight into the old generation the objects of a code site
// whose objects it has seen survive a young-generation collection. A write's
// decided events and states are all alive while it is decided and appended,
// so the deciders' sites are judged long-lived, and every later batch's
// objects go to the old generation to die there: a full collection every
// few batches (above). Without that guess they die young, as they are
// (docs/performance.md, "Operator's settings"). `npm start` and the image give it on the command line, which
// holds from V8's start; here it covers the other ways of running shiplog.
defaultFlag('--allocation-site-pretenuring', false)

// Whether to run dist/ is decided by shared/infra/compiled.mjs: the sources' copy in a checkout, dist/'s in
// the container image, which holds no sources.
const root = fileURLToPath(new URL('..', import.meta.url))
const compiled = ['shared/infra/compiled.mjs', 'dist/shared/infra/compiled.mjs'].find((p) => existsSync(join(root, p)))
const { importCompiledOrSource } = await import(pathToFileURL(join(root, compiled)).href)
await importCompiledOrSource(root, 'cli/shiplog')
