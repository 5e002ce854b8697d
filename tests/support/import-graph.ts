import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { parseSync } from 'oxc-parser'
import { ResolverFactory } from 'oxc-resolver'

/*
 * What each module imports, read by a real parser (oxc) and resolved by a
 * real resolver (oxc-resolver), not matched by a pattern: static imports and
 * re-exports in any quotes, type-only ones included, and dynamic `import()`
 * (a template's folder when its name is computed), in TypeScript and in
 * plain JavaScript modules alike.
 */

export const MODULE_FILE = /\.(ts|mts|mjs|js)$/

/** Every module under a folder (declarations aside). */
export const moduleFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? moduleFiles(join(dir, e.name))
      : MODULE_FILE.test(e.name) && !/\.d\.m?ts$/.test(e.name)
        ? [join(dir, e.name)]
        : [],
  )

export interface ModuleImports {
  /** Project files, relative to the root; a computed dynamic import, the folder its name starts in. */
  files: string[]
  /** Packages by name (`node:` built-ins included). */
  packages: string[]
  /** Specifiers nothing resolves: a typo, or a module that is not there. */
  unresolved: string[]
  /** Dynamic imports of a name computed from nothing written (a launcher's `import(url)`), as written. */
  computed: string[]
}

const resolver = new ResolverFactory({
  extensions: ['.ts', '.mts', '.mjs', '.js'],
  conditionNames: ['node', 'import'],
})

const packageName = (spec: string) =>
  spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!

/** The modules one file imports, read from its text (`root` is what paths are relative to). */
export function importsOf(root: string, file: string, text = readFileSync(join(root, file), 'utf8')): ModuleImports {
  const { module, errors } = parseSync(file, text)
  if (errors.length > 0) throw new Error(`${file} does not parse: ${errors[0]!.message}`)
  const result: ModuleImports = { files: [], packages: [], unresolved: [], computed: [] }
  const literal = (spec: string) => {
    if (!spec.startsWith('.') && !spec.startsWith('/')) {
      result.packages.push(packageName(spec))
      return
    }
    const found = resolver.sync(resolve(root, dirname(file)), spec)
    if (found.path) result.files.push(relative(root, found.path))
    else result.unresolved.push(spec)
  }
  for (const i of module.staticImports) literal(i.moduleRequest.value)
  for (const e of module.staticExports)
    for (const entry of e.entries) if (entry.moduleRequest) literal(entry.moduleRequest.value)
  for (const d of module.dynamicImports) {
    const source = text.slice(d.moduleRequest.start, d.moduleRequest.end).trim()
    const quoted = /^(['"`])([^'"`$]*)\1$/.exec(source)
    if (quoted) literal(quoted[2]!)
    else {
      // A computed name: held to where it starts, its leading text up to the last slash.
      const start = /^[`'"]([^`'"$]*)/.exec(source)?.[1] ?? ''
      const folder = start.slice(0, start.lastIndexOf('/') + 1)
      if (folder.startsWith('.')) result.files.push(relative(root, resolve(root, dirname(file), folder)))
      else result.computed.push(source)
    }
  }
  return result
}

/** The import graph of every module under the folders given. */
export function importGraph(root: string, folders: readonly string[]): Map<string, ModuleImports> {
  const graph = new Map<string, ModuleImports>()
  for (const folder of folders)
    for (const file of moduleFiles(join(root, folder))) {
      const path = relative(root, file)
      graph.set(path, importsOf(root, path))
    }
  return graph
}

/** A room: a folder (every file under it) or one file. */
export interface Room {
  path: string
  mayImport: readonly string[]
}

/** The room a file is in: the longest room path that is the file or a folder holding it. */
export function roomOf(rooms: readonly Room[], file: string): Room | undefined {
  return rooms
    .filter((r) => file === r.path || file.startsWith(`${r.path}/`))
    .sort((a, b) => b.path.length - a.path.length)[0]
}

/** Each import from a room into another it may not import (or into no room at all), as `from -> to`. */
export function backwardImports(graph: ReadonlyMap<string, ModuleImports>, rooms: readonly Room[]): string[] {
  const backward: string[] = []
  for (const [file, { files, unresolved }] of graph) {
    const room = roomOf(rooms, file)
    if (!room) continue
    for (const target of files) {
      const to = roomOf(rooms, target)
      if (to !== room && !(to && room.mayImport.includes(to.path))) backward.push(`${file} -> ${target}`)
    }
    for (const spec of unresolved) backward.push(`${file} -> ${spec} (unresolved)`)
  }
  return backward
}
