import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { defineConfig, stores } from '@cairn/adonis'
import { startApp, tempDir } from './helpers.ts'

void test('services/main is the booted app engine', async (t) => {
  const dir = await tempDir(t)
  const app = await startApp(
    t,
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: join(dir, 'd.sqlite') }) },
    }),
  )
  const { default: durable } = await import('@cairn/adonis/services/main')
  assert.equal(durable, await app.container.make('durable.engine'))
  const { runId } = await durable.start('greet', { name: 'service' })
  assert.equal((await durable.getRun(runId))?.status, 'pending')
})
