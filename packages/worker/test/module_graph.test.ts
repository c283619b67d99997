/**
 * A worker loads no store: importing @cairn/worker in a fresh process resolves no module of
 * core's engine or stores, no @cairn/sql, and no database driver. Recorded by a resolve hook
 * (node:module registerHooks) in a child process, so nothing this test file loaded counts.
 */
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { test } from 'node:test'

const PROBE = `
import { registerHooks } from 'node:module'
const seen = []
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context)
    seen.push(resolved.url)
    return resolved
  },
})
await import('@cairn/worker')
process.stdout.write(JSON.stringify(seen))
`

const FORBIDDEN = [
  /\/packages\/core\/src\/store\//,
  /\/packages\/core\/src\/engine\//,
  /\/packages\/core\/src\/execution\/(?!types\.ts)/,
  /\/packages\/sql\//,
  /^node:sqlite$/,
  /\/node_modules\/(pg|mysql2|knex|better-sqlite3)\//,
]

void test('importing @cairn/worker loads no engine, store or database driver module', () => {
  const output = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE], {
    encoding: 'utf8',
    env: { ...process.env, NODE_OPTIONS: '--conditions=cairn-source' },
  })
  const urls = JSON.parse(output) as string[]
  assert.ok(
    urls.some((url) => url.endsWith('/packages/worker/src/create_worker.ts')),
    `the probe saw no worker module: ${urls.join('\n')}`,
  )
  const loaded = urls.filter((url) => FORBIDDEN.some((pattern) => pattern.test(url)))
  assert.deepEqual(loaded, [], 'a worker must not load these')
})
