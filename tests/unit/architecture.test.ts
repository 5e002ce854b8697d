import { readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import t from 'tap'
import { typescriptFiles } from '../support/sources.ts'

/**
 * The rooms of the house and the rooms each may import (docs/architecture.md):
 * every import points down this table, and no module reaches itself again
 * through its imports.
 */
const ROOMS: ReadonlyArray<readonly [room: string, mayImport: readonly string[]]> = [
  ['shared/domain', []],
  ['shared/infra', ['shared/domain']],
  ['projectors', ['shared/domain', 'shared/infra']],
  ['commands', ['shared/domain', 'shared/infra', 'projectors']],
  ['reactions', ['shared/domain', 'shared/infra', 'projectors', 'commands']],
  ['jobs', ['shared/domain', 'shared/infra', 'projectors', 'commands', 'reactions']],
  ['command-api', ['shared/domain', 'shared/infra', 'projectors', 'commands', 'reactions']],
  ['query-api', ['shared/domain', 'shared/infra', 'projectors', 'reactions']],
  [
    'server',
    ['shared/domain', 'shared/infra', 'projectors', 'commands', 'reactions', 'jobs', 'command-api', 'query-api'],
  ],
  ['cli', ['shared/domain', 'shared/infra', 'projectors', 'commands', 'reactions', 'jobs', 'server']],
]

/** Packages that mean HTTP: the command core and everything below the APIs run without them. */
const HTTP_PACKAGES = /^(fastify|@fastify\/|fastify-type-provider-zod)/
const WITHOUT_HTTP = ['shared/domain', 'projectors', 'commands', 'reactions', 'jobs']

const roomOf = (file: string) => ROOMS.find(([room]) => file.startsWith(`${room}/`))?.[0]

/** Every module of the rooms with what it imports: project files by path, packages by name. */
const graph = new Map<string, { files: string[]; packages: string[] }>()
for (const [room] of ROOMS) {
  for (const file of typescriptFiles(room)) {
    const specs = [...readFileSync(file, 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map((m) => m[1]!)
    graph.set(file, {
      files: specs.filter((s) => s.startsWith('.')).map((s) => normalize(join(dirname(file), s))),
      packages: specs.filter((s) => !s.startsWith('.') && !s.startsWith('node:')),
    })
  }
}

t.test('each room imports only the rooms below it', async (t) => {
  const backward: string[] = []
  for (const [file, { files }] of graph) {
    const room = roomOf(file)!
    const allowed = ROOMS.find(([r]) => r === room)![1]
    for (const target of files) {
      const to = roomOf(target)
      if (to !== room && !(to && allowed.includes(to))) backward.push(`${file} -> ${target}`)
    }
  }
  t.same(backward, [])
})

t.test('no module imports itself through a circle', async (t) => {
  const circles: string[] = []
  const state = new Map<string, 'open' | 'done'>()
  const visit = (file: string, path: string[]) => {
    if (state.get(file) === 'done') return
    if (state.get(file) === 'open') {
      circles.push([...path.slice(path.indexOf(file)), file].join(' -> '))
      return
    }
    state.set(file, 'open')
    for (const target of graph.get(file)?.files ?? []) visit(target, [...path, file])
    state.set(file, 'done')
  }
  for (const file of graph.keys()) visit(file, [])
  t.same(circles, [])
})

t.test('the command core and the rooms below the APIs use no HTTP framework', async (t) => {
  const offending = [...graph]
    .filter(([file]) => WITHOUT_HTTP.includes(roomOf(file)!))
    .flatMap(([file, { packages, files }]) => [
      ...packages.filter((p) => HTTP_PACKAGES.test(p)).map((p) => `${file}: ${p}`),
      ...files.filter((f) => f.startsWith('shared/infra/http/')).map((f) => `${file}: ${relative('.', f)}`),
    ])
  t.same(offending, [])
})

/*
 * date-holidays' rules take long to load: a module that imported the package
 * itself, not just its types, would make every process and thread load them
 * at start again, a rebuild's second thread among them.
 */
t.test('date-holidays is imported for its types only; holiday-calendar.ts loads it on first use', async (t) => {
  const eager = [...graph.keys()].filter((file) =>
    /^import (?!type )[^\n]*from 'date-holidays'/m.test(readFileSync(file, 'utf8')),
  )
  t.same(eager, [])
})
