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
await import(process.argv[1])
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

/**
 * The worker and the transports' packages a worker process imports with it (the db transport is
 * @cairn/sql/transport: its own test, packages/sql/test/transport).
 */
const WORKER_SIDE: [string, string][] = [
  ['@cairn/worker', '/packages/worker/src/create_worker.ts'],
  ['@cairn/bullmq', '/packages/bullmq/src/worker.ts'],
  ['@cairn/queue', '/packages/queue/src/worker.ts'],
]

for (const [entry, marker] of WORKER_SIDE)
  void test(`importing ${entry} loads no engine, store or database driver module`, () => {
    const output = execFileSync(process.execPath, ['--input-type=module', '-e', PROBE, entry], {
      encoding: 'utf8',
      env: { ...process.env, NODE_OPTIONS: '--conditions=cairn-source' },
    })
    const urls = JSON.parse(output) as string[]
    assert.ok(
      urls.some((url) => url.endsWith(marker)),
      `the probe saw no ${marker}: ${urls.join('\n')}`,
    )
    const loaded = urls.filter((url) => FORBIDDEN.some((pattern) => pattern.test(url)))
    assert.deepEqual(loaded, [], 'a worker must not load these')
  })
