/**
 * A workflow class's `static workflow = { onEvent }` in an AdonisJS app: booting registers the
 * trigger, and a publish through the app's engine starts the run — once per derived run id.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { defineConfig, stores } from '@cairn/adonis'
import type { Engine } from '@cairn/core'
import { startApp, tempDir } from './helpers.ts'

const EVENTS_APP_ROOT = new URL('./fixtures/events_app/', import.meta.url)

void test('static workflow onEvent, eventBatch and queue: published events start the classes', async (t) => {
  const dir = await tempDir(t)
  const app = await startApp(
    t,
    defineConfig({
      store: 'sqlite',
      stores: { sqlite: stores.sqlite({ path: join(dir, 'd.sqlite') }) },
      drive: true,
      queues: { digests: { concurrency: 1 } },
    }),
    { root: EVENTS_APP_ROOT },
  )
  const engine: Engine = await app.container.make('durable.engine')
  const free = await engine.publishEvent('user.signed_up', { userId: 'u1', plan: 'free' })
  assert.deepEqual(free.started, [], 'the match keeps free plans out')
  const pro = { userId: 'u2', plan: 'pro' }
  const first = await engine.publishEvent('user.signed_up', pro)
  const second = await engine.publishEvent('user.signed_up', pro) // another event, same user
  assert.deepEqual(
    [...first.started, ...second.started].map((s) => `${s.runId} ${s.status}`),
    ['onboarding-u2 started', 'onboarding-u2 existing'],
  )
  assert.deepEqual(await engine.waitForRun('onboarding-u2', { timeoutMs: 30_000 }), {
    runId: 'onboarding-u2',
    status: 'completed',
    output: 'call booked for u2',
  })
  assert.equal((await engine.listRuns({ workflow: 'onboarding' })).runs.length, 1)
  // The digest class gathers every signup, two per run, on its queue.
  let digests = await engine.listRuns({ workflow: 'digest' })
  for (let i = 0; i < 3000 && digests.runs.length === 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 10))
    digests = await engine.listRuns({ workflow: 'digest' })
  }
  assert.equal(digests.runs.length, 1, 'three signups: one full pair so far')
  const digest = digests.runs[0]
  assert.equal(digest?.queue, 'digests')
  assert.deepEqual(await engine.waitForRun(digest?.id as string, { timeoutMs: 30_000 }), {
    runId: digest?.id,
    status: 'completed',
    output: 'digest of u1+u2',
  })
})
