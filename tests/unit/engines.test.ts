import { readFileSync } from 'node:fs'
import semver from 'semver'
import t from 'tap'

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } }
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as {
  packages: Record<string, { engines?: { node?: string } | string[]; dev?: boolean; optional?: boolean }>
}

/** Every release line engines allows, by its first version: where a package's lower bound would fall. */
const allowed = (range: string) =>
  Array.from({ length: 40 }, (_, major) => Array.from({ length: 60 }, (_, minor) => `${major}.${minor}.0`))
    .flat()
    .filter((version) => semver.satisfies(version, range))

t.test('every installed package runs on every Node that engines allows', async (t) => {
  const ours = manifest.engines.node
  const versions = allowed(ours)
  t.ok(versions.includes('20.19.0'), 'the Node of this machine and CI is allowed')
  const refusing = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && !entry.optional)
    .flatMap(([path, entry]) => {
      const theirs = Array.isArray(entry.engines) ? undefined : entry.engines?.node
      const refused = theirs && versions.find((version) => !semver.satisfies(version, theirs))
      return refused ? [`${path.replace(/^.*node_modules\//, '')} needs ${theirs}, not ${refused}`] : []
    })
  t.same(refusing, [], `engines says ${ours}`)
})
