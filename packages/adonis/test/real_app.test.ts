/**
 * The package in an AdonisJS app booted from disk the way bin/console.ts and bin/server.ts
 * do it: adonisrc.ts lists the provider, config/durable.ts uses defineConfig, under the app's
 * TypeScript loader (@poppinss/ts-exec), in a child process.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { tempDir } from './helpers.ts'

const script = fileURLToPath(new URL('./fixtures/real_app/bin/echo.ts', import.meta.url))

async function runEcho(environment: string, db: string): Promise<Record<string, unknown>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import=@poppinss/ts-exec', script, environment],
    { env: { ...process.env, CAIRN_TEST_DB: db }, timeout: 60_000 },
  )
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>
}

void test('an app booted from adonisrc.ts and config/durable.ts runs a discovered workflow', async (t) => {
  const dir = await tempDir(t)
  assert.deepEqual(await runEcho('web', join(dir, 'durable.sqlite')), {
    providers: 2,
    driving: true,
    output: 'hello',
  })
})

void test('the same app as an ace command (console environment) starts runs and does not drive', async (t) => {
  const dir = await tempDir(t)
  assert.deepEqual(await runEcho('console', join(dir, 'durable.sqlite')), {
    providers: 2,
    driving: false,
    status: 'pending',
  })
})

void test('the REPL (repl environment) starts runs and does not drive either', async (t) => {
  const dir = await tempDir(t)
  assert.deepEqual(await runEcho('repl', join(dir, 'durable.sqlite')), {
    providers: 2,
    driving: false,
    status: 'pending',
  })
})
