/**
 * The demo's engine process. `start` mode starts the batch of workflows and then kills itself
 * with SIGKILL part-way through (no cleanup, like a crash or an OOM kill). `resume` mode is the
 * restarted process: same instance id, so it takes its runs back at once and finishes them.
 */
import { Engine, silentLogger } from '@cairn/core'
import { SqliteStore } from '@cairn/sql/sqlite'
import { registerOrderWorkflow } from './workflow.ts'

const [mode, dbPath, ledger, count] = process.argv.slice(2) as [string, string, string, string]
const engine = new Engine({
  store: new SqliteStore({ path: dbPath }),
  logger: silentLogger,
  instanceId: 'demo-engine',
  holdTimersUpToMs: 100,
  pollIntervalMs: 50,
})
registerOrderWorkflow(engine, ledger)
await engine.startDriving()

if (mode === 'start') {
  await Promise.all(
    Array.from({ length: Number(count) }, (_, id) =>
      engine.start('order', { id }, { runId: `order-${id}` }),
    ),
  )
  // Die at an arbitrary moment while steps are in flight: no drain, no cleanup.
  engine.on('step:started', ({ name }) => {
    if (name === 'ship' && Math.random() < 0.1) process.kill(process.pid, 'SIGKILL')
  })
} else {
  const deadline = Date.now() + 60_000
  while (Date.now() < deadline) {
    const open = await engine.listRuns({ status: ['pending', 'running', 'waiting'], limit: 1 })
    if (open.runs.length === 0) break
    await new Promise((r) => setTimeout(r, 50))
  }
  await engine.close()
}
