/**
 * stores.sqlite creates the directory its file goes in: the configured default is tmp/, which
 * an app's repository does not hold, and a fresh clone must boot without a manual mkdir.
 */
import assert from 'node:assert/strict'
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import type { ApplicationService } from '@adonisjs/core/types'
import type { StateStore } from '@cairn/core'
import { stores } from '@cairn/adonis'
import { tempDir } from './helpers.ts'

// stores.sqlite needs nothing from the app, so its resolver is called without one.
const noApp = {} as ApplicationService

void test('stores.sqlite creates missing directories for its file', async (t) => {
  const path = join(await tempDir(t), 'tmp', 'nested', 'durable.sqlite')
  const store = (await stores.sqlite({ path }).resolver(noApp)) as StateStore
  t.after(() => store.close())
  await store.open()
  assert.ok((await stat(path)).isFile())
})

void test('stores.sqlite refuses an invalid path before touching the disk', async () => {
  await assert.rejects(stores.sqlite({ path: '' }).resolver(noApp), {
    code: 'E_INVALID_ARGUMENT',
    message: /path must be a non-empty string/,
  })
})
