/**
 * Child: starts `insert-item` (run id from argv) on the app described by argv's AppSpec, with
 * CAIRN_FAILPOINTS=P5=#1 set by this script's parent environment… or here, before core loads:
 * the transactional step dies (SIGKILL) after writing its checkpoint, before COMMIT.
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
