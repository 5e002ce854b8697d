// Worker threads do not inherit tsx's loader registration: register it, then run the TypeScript entry.
import { register } from 'tsx/esm/api'

register()
await import('./projector-thread-main.ts')
