import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { InvalidArgumentError } from '@cairn/core'
import { defineConfig as defineDatabaseConfig } from '@adonisjs/lucid'
import { defineConfig, stores } from '@cairn/adonis'
import GreetWorkflow from './fixtures/app/app/workflows/greet_workflow.ts'
import { createApp, startApp, tempDir } from './helpers.ts'

const lucidProvider = () => import('@adonisjs/lucid/database_provider')

function databaseConfig(dir: string) {
  return defineDatabaseConfig({
    connection: 'primary',
    connections: {
      primary: {
        client: 'better-sqlite3',
        connection: { filename: join(dir, 'app.sqlite') },
        useNullAsDefault: true,
      },
      other: {
        client: 'better-sqlite3',
        connection: { filename: join(dir, 'other.sqlite') },
        useNullAsDefault: true,
      },
    },
  })
}

void test('stores.lucid runs on a Lucid connection (better-sqlite3), next to the app tables', async (t) => {
  const dir = await tempDir(t)
  const app = await startApp(
    t,
    defineConfig({
      store: 'lucid',
      stores: { lucid: stores.lucid({ connection: 'other' }) },
      drive: true,
    }),
    { providers: [lucidProvider], config: { database: databaseConfig(dir) } },
  )
  const result = await GreetWorkflow.start({ name: 'Lucid' })
  assert.deepEqual(result, { greeting: 'Hello, Lucid' })

  // Cairn's tables are in the named connection's database, which stays Lucid's to close.
  const db = await app.container.make('lucid.db')
  const tables = await db.connection('other').getAllTables()
  assert.ok(
    tables.some((table) => table.startsWith('cairn')),
    `no Cairn table in ${tables.join(', ')}`,
  )
  assert.deepEqual(await db.connection('primary').getAllTables(), [])
  await app.terminate()
})

void test('stores.lucid defaults to the primary connection', async (t) => {
  const dir = await tempDir(t)
  const app = await startApp(
    t,
    defineConfig({ store: 'lucid', stores: { lucid: stores.lucid() }, drive: true }),
    { providers: [lucidProvider], config: { database: databaseConfig(dir) } },
  )
  assert.deepEqual(await GreetWorkflow.start({ name: 'primary' }), { greeting: 'Hello, primary' })
  const db = await app.container.make('lucid.db')
  assert.ok((await db.connection('primary').getAllTables()).some((t) => t.startsWith('cairn')))
})

void test('stores.lucid with an unknown connection fails boot, naming the field', async (t) => {
  const dir = await tempDir(t)
  const app = await createApp(
    defineConfig({ store: 'lucid', stores: { lucid: stores.lucid({ connection: 'nope' }) } }),
    { providers: [lucidProvider], config: { database: databaseConfig(dir) } },
  )
  t.after(() => app.terminate())
  await assert.rejects(app.boot(), (error: Error) => {
    assert.ok(InvalidArgumentError.is(error))
    assert.match(
      error.message,
      /Invalid config\/durable\.ts: "stores\.lucid" connection "nope" is not a Lucid connection \(config\/database\.ts has: primary, other\)/,
    )
    return true
  })
})

void test('stores.lucid without the Lucid provider fails boot, naming the field', async (t) => {
  const app = await createApp(defineConfig({ store: 'lucid', stores: { lucid: stores.lucid() } }))
  t.after(() => app.terminate())
  await assert.rejects(app.boot(), /"stores\.lucid" needs the @adonisjs\/lucid database provider/)
})
