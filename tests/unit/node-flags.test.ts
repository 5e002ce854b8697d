import { readFileSync } from 'node:fs'
import t from 'tap'

/*
 * `npm start` and the Docker image run the server with the same Node flags
 * (the heap and GC settings docs/performance.md measured): a change to one
 * that forgets the other would leave the image on settings nobody measured.
 */
const startScript = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } }).scripts.start
const startFlags = startScript.split(' ').filter((word) => word.startsWith('--'))

const entrypoint = readFileSync('Dockerfile', 'utf8')
  .split('\n')
  .find((line) => line.startsWith('ENTRYPOINT '))
const imageFlags = (JSON.parse(entrypoint?.slice('ENTRYPOINT '.length) ?? '[]') as string[]).filter((word) =>
  word.startsWith('--'),
)

t.test('the Docker image runs node with the flags of npm start', async (t) => {
  t.ok(entrypoint, 'the Dockerfile has an exec-form ENTRYPOINT')
  t.same(imageFlags, startFlags)
})
