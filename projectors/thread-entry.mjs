// A projector's worker thread starts here; workerData.main names its module
// in this folder. From dist/, run the JavaScript. From the TypeScript sources,
// run what bin/shiplog.js would: dist/'s copy when it is as fresh as they are
// (a thread through tsx spends a second of CPU loading its modules, which
// every server a test starts would pay), else the TypeScript module.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { workerData } from 'node:worker_threads'

if (!existsSync(new URL(`./${workerData.main}.ts`, import.meta.url))) {
  await import(`./${workerData.main}.js`)
} else {
  const { importCompiledOrSource } = await import('../shared/infra/compiled.mjs')
  await importCompiledOrSource(fileURLToPath(new URL('..', import.meta.url)), `projectors/${workerData.main}`)
}
