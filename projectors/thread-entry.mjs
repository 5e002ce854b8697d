// A projector's worker thread starts here; workerData.main names its module
// in this folder. Worker threads do not inherit tsx's loader registration: from
// the TypeScript sources, register it and run the TypeScript module; from
// dist/, run the JavaScript.
import { existsSync } from 'node:fs'
import { workerData } from 'node:worker_threads'

const source = new URL(`./${workerData.main}.ts`, import.meta.url)
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(source.href)
} else {
  await import(`./${workerData.main}.js`)
}
