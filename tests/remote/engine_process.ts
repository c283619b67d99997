/**
 * An engine process for the remote-step fault tests: on the store given by URL, with the BullMQ
 * transport, it starts `count` runs of `job` (one remote step each), prints `dispatched` once
 * every run waits on its task, and keeps driving until it is killed.
 * Usage: node engine_process.ts <storeUrl> <schemaOrDatabase> <redisUrl> <prefix> <count>
 */
import { Engine, silentLogger } from '@cairn/core'
import type { StateStore } from '@cairn/core/contracts'
import { bullmqTransport } from '@cairn/bullmq'

const [storeKind = '', where = '', redisUrl = '', prefix = '', count = '0'] = process.argv.slice(2)
const store = await openStore(storeKind, where)
const transport = bullmqTransport({ connection: redisUrl, prefix, stalledIntervalMs: 250 })
const engine = new Engine({
  store,
  logger: silentLogger,
  instanceId: `doomed-${process.pid}`,
  leaseMs: 2_000,
  transports: { redis: transport.engine() },
})
engine.registerStep('slow', () => 'not here', { transport: 'redis', retries: 0 })
engine.register('job', 1, async (ctx, n: number) => ctx.step<string>('slow', { n }))
await engine.startDriving()
const runs = await Promise.all(
  Array.from({ length: Number(count) }, (_, i) => engine.start('job', i)),
)
for (;;) {
  const states = await Promise.all(runs.map(({ runId }) => engine.getRun(runId)))
  if (states.every((run) => run?.status === 'waiting')) break
  await new Promise((resolve) => setTimeout(resolve, 20))
}
process.stdout.write(`dispatched ${runs.map((r) => r.runId).join(',')}\n`)
await new Promise(() => {}) // drive until killed

async function openStore(kind: string, place: string): Promise<StateStore> {
  if (kind === 'postgres') {
    const { PostgresStore } = await import('@cairn/sql/postgres')
    return new PostgresStore({
      connectionString: process.env.CAIRN_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
      schema: place,
      max: 4,
    })
  }
  const { MysqlStore } = await import('@cairn/sql/mysql')
  return new MysqlStore({
    uri: process.env.CAIRN_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test',
    database: place,
    max: 4,
  })
}
