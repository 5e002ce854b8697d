// A projector's worker thread starts here; workerData.main names its module
// in this folder. From dist/, run the JavaScript. From the TypeScript sources,
// run dist/'s copy when it is as fresh as they are (as bin/shiplog.js does): a
// thread through tsx spends a second of CPU loading its modules, which every
// server a test starts would pay. Otherwise register tsx, which worker threads
// do not inherit, and run the TypeScript module.
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { workerData } from 'node:worker_threads'

const source = new URL(`./${workerData.main}.ts`, import.meta.url)
if (!existsSync(source)) {
  await import(`./${workerData.main}.js`)
} else {
  const { runsCompiled } = await import('../bin/dist.mjs')
  if (runsCompiled(fileURLToPath(new URL('..', import.meta.url)))) {
    await import(new URL(`../dist/projectors/${workerData.main}.js`, import.meta.url).href)
  } else {
    const { register } = await import('tsx/esm/api')
    register()
    await import(source.href)
  }
}
