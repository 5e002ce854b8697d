import t from 'tap'
import { BATCH, checkIngest, ingestUnderFaults, seeded } from '../support/faults.ts'
import { createAccountWithCli, serviceEnvironment, spawnServer } from '../support/process.ts'

/*
 * The service killed with SIGKILL at seeded random moments while two clients
 * post 1000-tracker batches, restarted each time. Afterwards every tracker of
 * every acknowledged batch is there exactly once, a batch whose answer was
 * lost is there whole or not at all, and the projections have caught up.
 * `npm run soak` runs the same for as long as an operator likes.
 */
t.test('kill -9 during ingest: acknowledged batches whole and once, lost answers all or nothing', async (t) => {
  const env = await serviceEnvironment(t)
  const account = createAccountWithCli(env)
  const service = await spawnServer(env)
  const run = await ingestUnderFaults(env, account.private_key, {
    rounds: 3,
    random: seeded(2026),
    roundMs: [500, 2000],
    service,
    acknowledgedAtLeast: 3,
  })
  t.teardown(() => run.service.kill('SIGKILL'))
  t.ok(
    run.acknowledged.length >= 3,
    `${run.acknowledged.length} batches acknowledged, ${run.unanswered.length} cut off`,
  )
  t.equal(run.serverErrors, 0, 'no 5xx')
  const check = await checkIngest(env, account.id, run)
  t.ok(check.caughtUp, 'the projections have caught up with the log')
  t.equal(check.found, run.acknowledged.length * BATCH, 'every acknowledged tracker is there')
  t.equal(check.duplicated, 0, 'none twice')
  t.same(check.partial, [], 'no batch stored in part')
})
