/**
 * Child: claims runs from a shared file until none is left, printing `claimed <id>` for
 * each, then `done`. Several run at once against the same database.
 */
import { createSqliteStore } from '@cairn/sql/sqlite'

const [path, owner] = process.argv.slice(2) as [string, string]
const store = createSqliteStore({ path })
await store.open()
console.log('ready')
await new Promise((resolve) => process.stdin.once('data', resolve))
for (;;) {
  const { claimed } = await store.claimRuns({
    owner,
    now: Date.now(),
    leaseMs: 3_600_000,
    limit: 3,
    runnable: [{ workflow: 'shared', version: 'v1' }],
  })
  if (claimed.length === 0) break
  for (const run of claimed) process.stdout.write(`claimed ${run.id} ${run.leaseEpoch}\n`)
}
await store.close()
console.log('done')
process.exit(0)
