// Worker threads do not inherit tsx's loader registration: from the TypeScript
// sources, register it and run the TypeScript entry; from dist/, run the JavaScript.
import { existsSync } from 'node:fs'

const source = new URL('./projector-thread-main.ts', import.meta.url)
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(source.href)
} else {
  await import('./projector-thread-main.js')
}
