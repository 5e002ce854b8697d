import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import { backwardImports, importGraph, type Room, roomOf } from '../support/import-graph.ts'
import { tempDir } from '../support/temp.ts'

/**
 * The domain's floors, from the ground up (docs/architecture.md): each room
 * imports only the rooms of the floors below it. The ground floor (the
 * vocabulary of codes and channels, and the primitives beside it) imports
 * nothing else of the domain.
 */
const DOMAIN_FLOORS: readonly (readonly string[])[] = [
  ['vocabulary', 'errors.ts', 'ids.ts', 'memo.ts', 'same-value.ts', 'time.ts', 'holiday-calendar.ts'],
  ['contacts'],
  ['fields.ts'],
  ['tracking-page'],
  ['events'],
  ['accounts', 'carrier-services', 'carriers', 'connections', 'delivery', 'jobs', 'pickup-points', 'users', 'webhooks'],
  ['notifications'],
  ['orders'],
]
const domainRooms: Room[] = DOMAIN_FLOORS.flatMap((floor, level) =>
  floor.map((name) => ({
    path: `shared/domain/${name}`,
    mayImport: DOMAIN_FLOORS.slice(0, level)
      .flat()
      .map((below) => `shared/domain/${below}`),
  })),
)
const DOMAIN = domainRooms.map((r) => r.path)

/**
 * The rooms of the house and the rooms each may import (docs/architecture.md):
 * every import points down this table, and no module reaches itself again
 * through its imports.
 */
const HOUSE: ReadonlyArray<readonly [room: string, mayImport: readonly string[]]> = [
  ['shared/infra', DOMAIN],
  ['projectors', [...DOMAIN, 'shared/infra']],
  ['commands', [...DOMAIN, 'shared/infra', 'projectors']],
  ['reactions', [...DOMAIN, 'shared/infra', 'projectors', 'commands']],
  ['jobs', [...DOMAIN, 'shared/infra', 'projectors', 'commands', 'reactions']],
  ['command-api', [...DOMAIN, 'shared/infra', 'projectors', 'commands', 'reactions']],
  ['query-api', [...DOMAIN, 'shared/infra', 'projectors', 'reactions']],
  ['console', [...DOMAIN, 'shared/infra', 'projectors', 'commands', 'reactions', 'query-api']],
  [
    'server',
    [...DOMAIN, 'shared/infra', 'projectors', 'commands', 'reactions', 'jobs', 'command-api', 'query-api', 'console'],
  ],
  ['cli', [...DOMAIN, 'shared/infra', 'projectors', 'commands', 'reactions', 'jobs', 'console', 'server']],
  ['bin', [...DOMAIN, 'shared/infra', 'cli']],
]
const ROOMS: Room[] = [...domainRooms, ...HOUSE.map(([path, mayImport]) => ({ path, mayImport }))]

/** Packages that mean HTTP: the command core and everything below the APIs run without them. */
const HTTP_PACKAGES = /^(fastify|@fastify\/|fastify-type-provider-zod)/
const WITHOUT_HTTP = ['shared/domain', 'projectors', 'commands', 'reactions', 'jobs']

const graph = importGraph('.', ['shared', ...HOUSE.map(([room]) => room).filter((r) => r !== 'shared/infra')])

t.test('given backward imports of every kind, when the graph is read, then each is found', async (t) => {
  const root = tempDir(t, 'shiplog-rooms-')
  const files: Record<string, string> = {
    'shared/domain/vocabulary/codes.ts': "import { rule } from '../orders/rule.ts'\nexport const codes = [rule]",
    'shared/domain/orders/rule.ts': 'export const rule = 1',
    'shared/domain/events/typed.ts': 'import type { Plan } from "../../../commands/plan.ts"\nexport type T = Plan',
    'shared/infra/again.ts': 'export { plan } from "../../commands/plan.ts"',
    'commands/plan.ts': 'export type Plan = 1\nexport const plan = 1',
    'projectors/entry.mjs': "const { run } = await import('../cli/run.mjs')\nrun()",
    'projectors/computed.mjs': `const name = "x"\nawait import(\`../server/$\{name}.js\`)`,
    'projectors/quoted.ts': 'import { plan } from "../commands/plan.ts"\nexport const p = plan',
    'projectors/fine.ts': "import { rule } from '../shared/domain/orders/rule.ts'\nexport const f = rule",
    'cli/run.mjs': 'export const run = () => {}',
    'server/x.ts': 'export {}',
  }
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(root, dirname(file)), { recursive: true })
    writeFileSync(join(root, file), text)
  }
  const fixture = importGraph(root, ['shared', 'commands', 'projectors', 'cli', 'server'])
  t.same(backwardImports(fixture, ROOMS).sort(), [
    'projectors/computed.mjs -> server',
    'projectors/entry.mjs -> cli/run.mjs',
    'projectors/quoted.ts -> commands/plan.ts',
    'shared/domain/events/typed.ts -> commands/plan.ts',
    'shared/domain/vocabulary/codes.ts -> shared/domain/orders/rule.ts',
    'shared/infra/again.ts -> commands/plan.ts',
  ])
})

t.test('every module is in a room of the table', async (t) => {
  t.ok(graph.size > 200, `${graph.size} modules read`)
  t.same(
    [...graph.keys()].filter((file) => !roomOf(ROOMS, file)),
    [],
  )
})

t.test('each room imports only the rooms below it', async (t) => {
  t.same(backwardImports(graph, ROOMS), [])
})

/** The launchers: they run the module their caller names, compiled or from its source, by its path. */
const LAUNCHERS = ['bin/shiplog.js', 'shared/infra/compiled.mjs']

t.test('only the launchers import a module by a name computed at run time', async (t) => {
  t.same(
    [...graph].filter(([file, { computed }]) => computed.length > 0 && !LAUNCHERS.includes(file)).map(([f]) => f),
    [],
  )
  for (const launcher of LAUNCHERS) t.ok(graph.get(launcher)?.computed.length, `${launcher} is still one`)
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
    .filter(([file]) => WITHOUT_HTTP.some((room) => file.startsWith(`${room}/`)))
    .flatMap(([file, { packages, files }]) => [
      ...packages.filter((p) => HTTP_PACKAGES.test(p)).map((p) => `${file}: ${p}`),
      ...files.filter((f) => f.startsWith('shared/infra/http/')).map((f) => `${file}: ${f}`),
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
    /^import (?!type )[^\n]*from ['"]date-holidays['"]/m.test(readFileSync(file, 'utf8')),
  )
  t.same(eager, [])
})
