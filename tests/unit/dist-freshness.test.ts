import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { BUILT_STAMP, distIsFresh, runsCompiled } from '../../shared/infra/compiled.mjs'
import { tempDir } from '../support/temp.ts'

/** A project's build inputs, each last changed at `at`. */
function project(t: Parameters<typeof tempDir>[0], at: Date) {
  const root = tempDir(t, 'shiplog-dist-')
  mkdirSync(join(root, 'src'))
  mkdirSync(join(root, 'bin'))
  mkdirSync(join(root, 'dist'))
  const files = {
    'tsconfig.build.json': JSON.stringify({ include: ['src'] }),
    'tsconfig.json': '{}',
    'package.json': '{}',
    'bin/build.mjs': '',
    'src/order.ts': 'export {}',
  }
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text)
  for (const path of [...Object.keys(files), 'src', 'bin']) utimesSync(join(root, path), at, at)
  return root
}

const stamp = (root: string, at: Date) => {
  writeFileSync(join(root, BUILT_STAMP), '')
  utimesSync(join(root, BUILT_STAMP), at, at)
}

t.test('dist/ is fresh once built after every input last changed, and only then', async (t) => {
  const root = project(t, new Date('2026-11-01T10:00:00Z'))
  t.notOk(distIsFresh(root), 'never built')
  stamp(root, new Date('2026-11-01T11:00:00Z'))
  t.ok(distIsFresh(root), 'built after the last change')

  utimesSync(join(root, 'src/order.ts'), new Date(), new Date('2026-11-01T12:00:00Z'))
  t.notOk(distIsFresh(root), 'a source saved after the build')
  stamp(root, new Date('2026-11-01T13:00:00Z'))
  t.ok(distIsFresh(root))

  writeFileSync(join(root, 'src/tracker.ts'), 'export {}')
  t.notOk(distIsFresh(root), 'a source added after the build (its folder changed)')
  stamp(root, new Date(Date.now() + 60_000))
  utimesSync(join(root, 'package.json'), new Date(), new Date(Date.now() + 120_000))
  t.notOk(distIsFresh(root), 'the package settings changed after the build')
})

t.test(
  'shiplog runs dist/ as SHIPLOG_RUN_COMPILED says, else where the sources are absent or dist/ is fresh',
  async (t) => {
    const root = project(t, new Date('2026-11-01T10:00:00Z'))
    t.ok(runsCompiled(root, undefined), 'no sources of the command (the container image)')
    mkdirSync(join(root, 'cli'))
    writeFileSync(join(root, 'cli/shiplog.ts'), 'export {}')
    t.notOk(runsCompiled(root, undefined), 'sources, never built')
    t.ok(runsCompiled(root, '1'), 'asked for')
    stamp(root, new Date(Date.now() + 60_000))
    t.ok(runsCompiled(root, undefined), 'sources, and dist/ built after them')
    t.notOk(runsCompiled(root, '0'), 'the sources asked for')
  },
)

t.test("every compiled module a benchmark's script imports has its source", async (t) => {
  const bench = join(import.meta.dirname, '../../bench')
  const imports = readdirSync(bench)
    .filter((name) => name.endsWith('.mjs'))
    .flatMap((name) =>
      [...readFileSync(join(bench, name), 'utf8').matchAll(/'\.\.\/dist\/([\w/.-]+)\.js'/g)].map((m) => ({
        name,
        source: `${m[1]}.ts`,
      })),
    )
  t.ok(imports.length > 0, 'the scripts import compiled modules')
  for (const { name, source } of imports)
    t.ok(existsSync(join(bench, '..', source)), `${name} imports dist/ of ${source}, which exists`)
})
