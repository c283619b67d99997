/**
 * A crash-test engine process: drives runs on a SQLite file until it is killed. Restarts use
 * the same instance id, so a restarted process reclaims its runs at once. Configured by env:
 * CRASH_DB, CRASH_LEDGER; failpoints by CAIRN_FAILPOINTS.
 */
import { Engine, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { registerCrashWorkflow } from './crash_workflow.ts'

const store = new SqliteStore({ path: process.env.CRASH_DB as string })
const engine = new Engine({
  store,
  logger: silentLogger,
  instanceId: 'crash-engine',
  concurrency: 50,
  leaseMs: 2_000,
  holdTimersUpToMs: 100,
  pollIntervalMs: 50,
})
registerCrashWorkflow(engine, process.env.CRASH_LEDGER as string)
await engine.startDriving()
process.stdout.write('ready\n')
setInterval(() => {}, 1_000) // stay alive until killed
