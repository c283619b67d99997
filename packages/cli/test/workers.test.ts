/**
 * `cairn workers`: the fleet heard on a transport (a db transport on a SQLite file here, no
 * store opened), as a table and as JSON; a worker that left is gone; bad usage is exit 2.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sqliteTransport } from '@cairn/sql/transport'
import { createWorker } from '@cairn/worker'
import { cairn } from './cli_fixture.ts'

void test('cairn workers lists the live workers of a transport, as a table and as JSON', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'cairn-cli-workers-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'transport.db')
  const worker = createWorker({
    transport: sqliteTransport({ path }).worker(),
    workerId: 'render-1',
    capabilities: ['gpu'],
    concurrency: { mode: 'adaptive', min: 2, max: 8 },
    steps: { render: () => 1 },
  })
  await worker.start()
  t.after(() => worker.close(100))

  const table = await cairn(['workers', '--transport', `sqlite:${path}`])
  assert.equal(table.code, 0, table.stderr)
  assert.match(table.stdout, /render-1 .* gpu .* render .* 2 \(adaptive 2–8\) .* 0 .* s ago .* v1/)
  const json = await cairn(['workers', '--transport', `sqlite:${path}`, '--json'])
  assert.equal(json.code, 0, json.stderr)
  const [listed, ...others] = (JSON.parse(json.stdout) as { workers: Record<string, unknown>[] })
    .workers
  assert.deepEqual(others, [])
  assert.deepEqual(
    [listed?.workerId, listed?.capabilities, listed?.steps, listed?.protocol],
    ['render-1', ['gpu'], ['render'], 1],
  )

  await worker.close(100)
  const gone = await cairn(['workers', '--transport', `sqlite:${path}`])
  assert.equal(gone.stdout.trim(), 'No live workers.')
})

void test('cairn workers: a missing transport, a bad --seen-within or a foreign option is exit 2', async () => {
  const none = await cairn(['workers'], { CAIRN_TRANSPORT: '' })
  assert.equal(none.code, 2)
  assert.match(none.stderr, /--transport <url> \(or \$CAIRN_TRANSPORT\) is required/)
  const bad = await cairn(['workers', '--transport', 'x.db', '--seen-within', 'NaN'])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--seen-within NaN: expected an integer/)
  const foreign = await cairn(['workers', '--transport', 'x.db', '--prefix', 'p'])
  assert.equal(foreign.code, 2)
  assert.match(foreign.stderr, /cairn workers: --prefix is for redis:\/\//)
})
