/**
 * Child: starts `insert-item` (run id from argv) on the app that argv's AppSpec describes, and
 * dies at failpoint P5 (SIGKILL): its transactional step has inserted and written its
 * checkpoint, and not committed. The failpoint is switched on before @cairn/core loads (it
 * reads CAIRN_FAILPOINTS once), hence the dynamic import.
 */
import type { AppSpec } from '../helpers/transactional_app.ts'

process.env.CAIRN_FAILPOINTS = 'P5=#1'
const { newEngine, openKnex, openStore, registerInsertItem } =
  await import('../helpers/transactional_app.ts')
const [specText, runId] = process.argv.slice(2) as [string, string]
const spec = JSON.parse(specText) as AppSpec
const knex = openKnex(spec)
const engine = newEngine(await openStore(knex, spec), { instanceId: 'tx-crashy' })
registerInsertItem(engine, spec, { count: 0 })
await engine.startDriving()
await engine.start('insert-item', { note: 'd' }, { runId })
await engine.waitForRun(runId, { timeoutMs: 20_000 })
console.error('the failpoint never fired: the run finished')
process.exit(1)
