/**
 * The standard workload on DBOS Transact (@dbos-inc/dbos-sdk), on the same Postgres as the
 * Postgres rows: one registered workflow of `steps` sequential DBOS.runStep steps, each step's
 * output checkpointed in DBOS's system database before the workflow sees it.
 */
import { DBOS, type DLogger } from '@dbos-inc/dbos-sdk'
import { databaseUrl, withAdminClient, withClient } from './postgres_service.ts'
import {
  LATENCY_RUNS,
  MARGINAL_RUNS,
  S,
  THROUGHPUT_REPEATS,
  W,
  runWorkload,
  type RunOne,
  type WorkloadResult,
} from './workload.ts'

/** DBOS's own system database, dropped and recreated per run so runs never accumulate. */
export const DBOS_DATABASE = 'cairn_bench_dbos'

/**
 * Fewer than the standard 2,000: at ~70 workflows/s, 2,000 would add ~30 s to every bench run,
 * and 500 (5,000 steps, plenty for the JIT) measured the same throughput as 2,000.
 */
export const DBOS_WARM_UP_RUNS = 500

// Like Cairn's silentLogger: DBOS's info chatter would interleave with the JSON line.
const quietLogger: DLogger = {
  info: () => {},
  debug: () => {},
  warn: (entry) => console.error(entry),
  error: (entry) => console.error(entry),
}

export async function dbosWorkload(warmUpRuns = DBOS_WARM_UP_RUNS): Promise<WorkloadResult> {
  await withAdminClient(async (c) => {
    await c.query(`DROP DATABASE IF EXISTS ${DBOS_DATABASE} WITH (FORCE)`)
    await c.query(`CREATE DATABASE ${DBOS_DATABASE}`)
  })
  const benchSteps = DBOS.registerWorkflow(stepsWorkflow, { name: 'bench-steps' })
  DBOS.setConfig({
    name: 'cairn-bench',
    applicationVersion: 'bench',
    systemDatabaseUrl: databaseUrl(DBOS_DATABASE),
    // The default system-database pool (10): pools of 20 and 50 measured slower on 2 cores.
    logger: quietLogger,
  })
  await DBOS.launch()
  try {
    const runOne: RunOne = async (id, steps) => {
      const handle = await DBOS.startWorkflow(benchSteps)({ id, steps })
      await handle.getResult()
    }
    const result = await runWorkload(runOne, warmUpRuns)
    await checkCheckpoints(warmUpRuns)
    return result
  } finally {
    await DBOS.shutdown()
  }
}

async function stepsWorkflow(input: { id: number; steps: number }): Promise<number> {
  let acc = 0
  for (let i = 0; i < input.steps; i++) {
    const r = await DBOS.runStep(async () => ({ i, ok: true, v: acc + i }), { name: `step-${i}` })
    acc = r.v
  }
  return acc
}

// Proof that the steps ran as durable steps, not plain calls: each left its checkpoint row.
async function checkCheckpoints(warmUpRuns: number): Promise<void> {
  const expected = (warmUpRuns + THROUGHPUT_REPEATS * W) * S + LATENCY_RUNS + MARGINAL_RUNS * S
  const found = await withClient(databaseUrl(DBOS_DATABASE), async (c) => {
    const { rows } = await c.query<{ n: string }>(
      `SELECT count(*) AS n FROM dbos.operation_outputs WHERE function_name LIKE 'step-%'`,
    )
    return Number(rows[0]?.n)
  })
  if (found !== expected)
    throw new Error(`dbos: ${found} step checkpoints in its system database, expected ${expected}`)
}
