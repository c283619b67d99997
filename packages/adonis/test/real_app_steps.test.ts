/**
 * A class step whose constructor takes a service through @inject(), in an app booted from
 * disk under the app's TypeScript loader (@poppinss/ts-exec: decorators and their metadata),
 * in a child process — node's own type stripping has no decorators.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { tempDir } from './helpers.ts'

const appRoot = fileURLToPath(new URL('./fixtures/real_app/', import.meta.url))

void test('the container builds a step class per execution with its @inject() services', async (t) => {
  const dir = await tempDir(t)
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import=@poppinss/ts-exec', 'bin/convert.ts'],
    {
      // ts-exec reads the tsconfig.json of its working directory: the app's, with decorator metadata.
      cwd: appRoot,
      env: { ...process.env, CAIRN_TEST_DB: join(dir, 'durable.sqlite') },
      timeout: 60_000,
    },
  )
  assert.deepEqual(JSON.parse(stdout.trim().split('\n').at(-1)!), {
    output: { cents: 300, rateSource: 'container' },
  })
})
