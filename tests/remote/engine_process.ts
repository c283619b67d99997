/**
 * An engine process for the remote-step fault tests: on the store at the given location, over
 * the transport a spec names (transport_spec.ts), it starts `count` runs of `job` (one remote
 * step each), prints `dispatched` once every run waits on its task (`blocked`, when no worker
 * is up yet), and keeps driving until it is killed.
 * Usage: node engine_process.ts <store location JSON> <transport spec JSON> <count>
 */
import { Engine, silentLogger } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import type { StoreLocation } from '../helpers/stores.ts'
import { transportOf, type TransportSpec } from './transport_spec.ts'

const [location = '', spec = '', count = '0'] = process.argv.slice(2)
const store = await storeAt(JSON.parse(location) as StoreLocation)
const transport = await transportOf(JSON.parse(spec) as TransportSpec)
const engine = new Engine({
  store,
  logger: silentLogger,
  instanceId: `doomed-${process.pid}`,
  leaseMs: 2_000,
  transports: { remote: transport.engine() },
})
engine.registerStep('slow', () => 'not here', { transport: 'remote', retries: 0 })
engine.register('job', 1, async (ctx, n: number) => ctx.step<string>('slow', { n }))
await engine.startDriving()
const runs = await Promise.all(
  Array.from({ length: Number(count) }, (_, i) => engine.start('job', i)),
)
for (;;) {
  const states = await Promise.all(runs.map(({ runId }) => engine.getRun(runId)))
  if (states.every((run) => run?.status === 'waiting' || run?.status === 'blocked')) break
  await new Promise((resolve) => setTimeout(resolve, 20))
}
process.stdout.write(`dispatched ${runs.map((r) => r.runId).join(',')}\n`)
await new Promise(() => {}) // drive until killed

/** The store at a location (tests/helpers/stores.ts), as another process opens it. */
export async function storeAt(where: StoreLocation): Promise<StateStore> {
  if (where.dialect === 'postgres') {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    return new PostgresStore({
      connectionString: process.env.CAIRN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      schema: where.schema,
      max: 4,
    })
  }
  if (where.dialect === 'mysql') {
    const { MysqlStore } = await import('@cairn/sql/mysql')
    return new MysqlStore({
      uri: process.env.CAIRN_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
      database: where.database,
      max: 4,
    })
  }
  const { SqliteStore } = await import('@cairn/sql/sqlite')
  return new SqliteStore({ path: where.path })
}
