// Whether dist/ (npm run build) is the JavaScript of the TypeScript sources as they
// stand: its build started after every file it was built from last changed.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

/** Written at the end of a build, dated when the build started. */
export const BUILT_STAMP = join('dist', '.built')

/** The folders and files a build reads: tsconfig.build.json's `include`, the settings and the build script. */
function buildInputs(root) {
  const { include } = JSON.parse(readFileSync(join(root, 'tsconfig.build.json'), 'utf8'))
  return [...include, 'package.json', 'tsconfig.json', 'tsconfig.build.json', join('bin', 'build.mjs')]
}

/** The latest change under a path, in ms; a folder's own time covers a file removed from it. */
function lastChange(path) {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (!stat) return 0
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = stat.mtimeMs
  for (const name of readdirSync(path)) latest = Math.max(latest, lastChange(join(path, name)))
  return latest
}

export function distIsFresh(root) {
  const built = statSync(join(root, BUILT_STAMP), { throwIfNoEntry: false })
  return built !== undefined && buildInputs(root).every((input) => lastChange(join(root, input)) <= built.mtimeMs)
}

/**
 * Whether bin/shiplog.js runs dist/ rather than the sources through tsx:
 * SHIPLOG_RUN_COMPILED=1 or 0 decides; unset, dist/ when the sources are
 * absent (the container image) or it is as fresh as they are.
 */
export function runsCompiled(root, choice = process.env.SHIPLOG_RUN_COMPILED) {
  if (choice === '1' || !existsSync(join(root, 'cli', 'shiplog.ts'))) return true
  return choice !== '0' && distIsFresh(root)
}

/**
 * Runs the module at `path` (from `root`, without its extension): dist/'s
 * JavaScript when runsCompiled, else the TypeScript source through tsx,
 * registered here (a worker thread does not inherit the registration).
 */
export async function importCompiledOrSource(root, path) {
  if (runsCompiled(root)) return import(pathToFileURL(join(root, 'dist', `${path}.js`)).href)
  const { register } = await import('tsx/esm/api')
  register()
  return import(pathToFileURL(join(root, `${path}.ts`)).href)
}
