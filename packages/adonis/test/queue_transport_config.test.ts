/**
 * `transports.queue()` reads config/queue.ts of a real (initialised) app: a missing queue config,
 * an adapter name it does not have, or an adapter that is not a factory is refused with
 * E_INVALID_ARGUMENT naming what is there; a named adapter (or the default) makes the
 * transport, whose halves call that factory.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test, type TestContext } from 'node:test'
import { configProvider } from '@adonisjs/core'
import { defineConfig, stores, transports } from '@cairn/adonis'
import { startApp, tempDir } from './helpers.ts'

async function resolveWith(
  t: TestContext,
  queue: unknown,
  options?: Parameters<typeof transports.queue>[0],
) {
  const path = join(await tempDir(t), 'durable.sqlite')
  const durable = defineConfig({ store: 'sqlite', stores: { sqlite: stores.sqlite({ path }) } })
  const app = await startApp(t, durable, { config: queue === undefined ? {} : { queue } })
  return configProvider.resolve(app, transports.queue(options))
}

void test('transports.queue refuses an app without config/queue.ts or without the adapter', async (t) => {
  await assert.rejects(resolveWith(t, undefined), /needs @adonisjs\/queue configured/)
  const factory = () => ({})
  await assert.rejects(
    resolveWith(t, { default: 'redis', adapters: { database: factory } }),
    /config\/queue.ts has no adapter "redis" \(it has: database\)/,
  )
  await assert.rejects(
    resolveWith(t, { default: 'redis', adapters: { redis: factory } }, { adapter: 'sqs' }),
    /has no adapter "sqs"/,
  )
  await assert.rejects(
    resolveWith(t, { default: 'redis', adapters: { redis: 42 } }),
    /adapter "redis" did not resolve to an adapter factory/,
  )
  await assert.rejects(
    resolveWith(t, { default: 'redis', adapters: { redis: factory } }, { adapter: 7 as never }),
    /adapter must be an adapter name/,
  )
  await assert.rejects(
    resolveWith(t, { default: 'redis', adapters: { redis: factory } }, { connection: 'main' }),
    /unknown option "connection": the adapter says which connection: pass adapter/,
  )
  await assert.rejects(
    resolveWith(t, { default: 'redis', adapters: { redis: factory } }, { pollInterval: 5 }),
    /unknown option "pollInterval"/,
  )
})

void test('transports.queue takes the named adapter, or the default, as its factory', async (t) => {
  const calls: string[] = []
  const made = (name: string) => () => {
    calls.push(name)
    throw new Error(`made ${name}`)
  }
  const queue = {
    default: 'redis',
    adapters: {
      redis: made('redis'),
      database: configProvider.create(async () => made('database')),
    },
  }
  const byDefault = (await resolveWith(t, queue)) as { engine(): { open(): Promise<void> } }
  await assert.rejects(byDefault.engine().open(), /made redis/)
  const named = (await resolveWith(t, queue, { adapter: 'database' })) as typeof byDefault
  await assert.rejects(named.engine().open(), /made database/)
  assert.deepEqual(calls, ['redis', 'database'])
})
