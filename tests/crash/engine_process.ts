/**
 * A crash-test engine process: drives runs until it is killed. Restarts use the same instance
 * id, so a restarted process reclaims its runs at once. Configured by env: CRASH_LEDGER,
 * CRASH_INSTANCE (default `crash-engine`), and the store — CRASH_DB (a SQLite file) or
 * CRASH_PG_URL + CRASH_PG_SCHEMA (Postgres) or CRASH_MYSQL_URL + CRASH_MYSQL_DB (MySQL/MariaDB);
 * CRASH_LOG (a file for warnings), CRASH_TRACE (a file for lifecycle events), CRASH_LEASE_MS
 * (default 2 s); failpoints by
 * CAIRN_FAILPOINTS.
 */
import { appendFileSync } from 'node:fs'
import {
  channels,
  Engine,
  silentLogger,
  type EngineEventName,
  type Logger,
  type StateStore,
} from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { registerCrashWorkflow } from './crash_workflow.ts'

async function openStore(): Promise<StateStore> {
  const env = process.env
  if (env.CRASH_MYSQL_DB !== undefined) {
    const { MysqlStore } = await import('@cairn/sql/mysql')
    const max = Number(env.CRASH_POOL_MAX ?? 5)
    return new MysqlStore({ uri: env.CRASH_MYSQL_URL as string, database: env.CRASH_MYSQL_DB, max })
  }
  if (env.CRASH_PG_SCHEMA === undefined) return new SqliteStore({ path: env.CRASH_DB as string })
  const { PostgresStore } = await import('@cairn/sql/postgres')
  return new PostgresStore({
    connectionString: env.CRASH_PG_URL as string,
    schema: env.CRASH_PG_SCHEMA,
    max: Number(env.CRASH_POOL_MAX ?? 5),
  })
}

// CRASH_LOG: warnings and errors go to that file (one JSON line each, with the instance id), so a
// test can count what the engine noticed (lost leases, fenced writes).
function errorText(err: unknown): string | undefined {
  if (err === undefined) return undefined
  const { code, message } = err as { code?: unknown; message?: unknown }
  return `${String(code ?? '')} ${String(message ?? err)}`.slice(0, 300)
}

function logger(): Logger {
  const file = process.env.CRASH_LOG
  if (file === undefined) return silentLogger
  const write = (level: string) => (obj: Record<string, unknown>, msg: string) =>
    appendFileSync(
      file,
      `${JSON.stringify({ level, msg, instance: process.env.CRASH_INSTANCE, runId: obj.runId, reason: obj.reason, err: errorText(obj.err) })}\n`,
    )
  return { ...silentLogger, warn: write('warn'), error: write('error') }
}

const engine = new Engine({
  store: await openStore(),
  logger: logger(),
  instanceId: process.env.CRASH_INSTANCE ?? 'crash-engine',
  concurrency: Number(process.env.CRASH_CONCURRENCY ?? 50),
  leaseMs: Number(process.env.CRASH_LEASE_MS ?? 2_000),
  holdTimersUpToMs: 100,
  pollIntervalMs: 50,
})
registerCrashWorkflow(engine, process.env.CRASH_LEDGER as string)
traceEvents(engine, process.env.CRASH_TRACE)
await engine.startDriving()
process.stdout.write('ready\n')
setInterval(() => {}, 1_000) // stay alive until killed

// CRASH_TRACE: every lifecycle event, one line each, so a test that finds a run stuck can show
// the last thing that happened to it.
function traceEvents(engine: Engine, file: string | undefined): void {
  if (file === undefined) return
  const names = Object.keys(channels) as EngineEventName[]
  for (const name of names) {
    engine.on(name, (event) => {
      const { runId, seq } = event as { runId: string; seq?: number }
      appendFileSync(file, `${Date.now()} ${runId} ${name}${seq === undefined ? '' : ` #${seq}`}\n`)
    })
  }
}
