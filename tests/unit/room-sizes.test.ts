import { readFileSync } from 'node:fs'
import { parseSync } from 'oxc-parser'
import t from 'tap'
import { moduleFiles } from '../support/import-graph.ts'

/* A room a newcomer reads in minutes: no module over 500 lines, no function over 150. */

const ROOMS = [
  'shared',
  'projectors',
  'commands',
  'reactions',
  'jobs',
  'command-api',
  'query-api',
  'server',
  'cli',
  'bin',
]
const MAX_FILE_LINES = 500
const MAX_FUNCTION_LINES = 150

const files = ROOMS.flatMap((room) => moduleFiles(room))

t.test('no module is longer than 500 lines', async (t) => {
  t.ok(files.length > 200)
  const long = files
    .map((file) => [file, readFileSync(file, 'utf8').split('\n').length] as const)
    .filter(([, lines]) => lines > MAX_FILE_LINES)
    .map(([file, lines]) => `${file}: ${lines} lines`)
  t.same(long, [])
})

t.test('no function is longer than 150 lines', async (t) => {
  const long: string[] = []
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    const lineAt = (offset: number) => text.slice(0, offset).split('\n').length
    const visit = (node: unknown): void => {
      if (Array.isArray(node)) {
        for (const item of node) visit(item)
        return
      }
      if (node === null || typeof node !== 'object') return
      const n = node as { type?: string; start: number; end: number; body?: unknown }
      if (n.type && /Function/.test(n.type) && n.body) {
        const lines = lineAt(n.end) - lineAt(n.start) + 1
        if (lines > MAX_FUNCTION_LINES) long.push(`${file}:${lineAt(n.start)}: ${lines} lines`)
      }
      for (const value of Object.values(node)) if (value && typeof value === 'object') visit(value)
    }
    visit(parseSync(file, text).program)
  }
  t.same(long, [])
})
