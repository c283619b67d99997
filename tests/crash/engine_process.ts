/**
 * A crash-test engine process: drives runs until it is killed. Restarts use the same instance
 * id, so a restarted process reclaims its runs at once. Configured by env: CRASH_LEDGER,
 * CRASH_INSTANCE (default `crash-engine`), and the store — CRASH_DB (a SQLite file) or
 * CRASH_PG_URL + CRASH_PG_SCHEMA (Postgres) or CRASH_MYSQL_URL + CRASH_MYSQL_DB (MySQL/MariaDB);
 * CRASH_LOG (a file for warnings), CRASH_TRACE (a file for lifecycle events), CRASH_LEASE_MS
 * (default 2 s), CRASH_SINGLETON_KEYS (admit one `crash` run per key over that many keys);
 * CRASH_QUEUE_LEDGER + CRASH_QUEUE_CONCURRENCY (+ CRASH_QUEUE_LEASES=1: the queue with slot
 * leases; CRASH_HOLD_MS: holdTimersUpToMs, default 100) (the `queued` workflow, queue_workflow.ts);
 * CRASH_RATE_LEDGER (the `metered` workflow on a rate-limited queue, rate_workflow.ts);
 * CRASH_POISON_LEDGER (the `poison` workflow that kills its process, poison_workflow.ts) with
 * CRASH_MAX_RECOVERY (maxRecoveryAttempts);
 * failpoints by
 * CAIRN_FAILPOINTS.
 */
import { Engine } from '@cairn/core'
import { childLogger, traceEvents } from './child_observers.ts'
import { openStore } from './child_store.ts'
import { registerCrashWorkflow, watchStepStarts } from './crash_workflow.ts'
import { registerQueuedWorkflow } from './queue_workflow.ts'
import { registerRatedWorkflow } from './rate_workflow.ts'
import { registerPoisonWorkflow } from './poison_workflow.ts'

const engine = new Engine({
  store: await openStore(),
  logger: childLogger(),
  instanceId: process.env.CRASH_INSTANCE ?? 'crash-engine',
  concurrency: Number(process.env.CRASH_CONCURRENCY ?? 50),
  leaseMs: Number(process.env.CRASH_LEASE_MS ?? 2_000),
  holdTimersUpToMs: Number(process.env.CRASH_HOLD_MS ?? 100),
  pollIntervalMs: 50,
  // The crash tests kill processes at random, not because of a run: a run held by several of
  // them in a row would count those takeovers and end dead (docs/dead-letters.md). The bound
  // is off here unless a test asks for it (poison_kill.test.ts).
  maxRecoveryAttempts:
    process.env.CRASH_MAX_RECOVERY === undefined
      ? Infinity
      : Number(process.env.CRASH_MAX_RECOVERY),
})
const singletonKeys = process.env.CRASH_SINGLETON_KEYS
registerCrashWorkflow(
  engine,
  process.env.CRASH_LEDGER as string,
  watchStepStarts(engine),
  singletonKeys === undefined ? undefined : Number(singletonKeys),
)
const queueLedger = process.env.CRASH_QUEUE_LEDGER
if (queueLedger !== undefined)
  registerQueuedWorkflow(
    engine,
    queueLedger,
    Number(process.env.CRASH_QUEUE_CONCURRENCY ?? 1),
    process.env.CRASH_QUEUE_LEASES === '1',
  )
const rateLedger = process.env.CRASH_RATE_LEDGER
if (rateLedger !== undefined) registerRatedWorkflow(engine, rateLedger)
const poisonLedger = process.env.CRASH_POISON_LEDGER
if (poisonLedger !== undefined) registerPoisonWorkflow(engine, poisonLedger)
traceEvents(engine, process.env.CRASH_TRACE)
await engine.startDriving()
process.stdout.write('ready\n')
setInterval(() => {}, 1_000) // stay alive until killed
