/**
 * Not a benchmark of its own (bench/run.mjs skips it): replayInOwnProcess
 * (support.ts) runs it on the stores a benchmark wrote, in a fresh process,
 * and reads its one line of JSON.
 */
import { loadConfig } from '../shared/infra/config.ts'
import { measureReplay } from './support.ts'

process.stdout.write(
  JSON.stringify(await measureReplay(loadConfig({ ...process.env, DATA_DIR: process.argv[2], LOG_LEVEL: 'silent' }))),
)
