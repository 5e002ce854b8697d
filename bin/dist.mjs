// Whether dist/ (npm run build) is the JavaScript of the TypeScript sources as they
// stand: its build started after every file it was built from last changed.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'

/** Written at the end of a build, dated when the build started. */
export const BUILT_STAMP = join('dist', '.built')

/** The folders and files a build reads: tsconfig.build.json's `include`, the settings and the build script. */
export function buildInputs(root) {
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
