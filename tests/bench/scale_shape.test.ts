/**
 * `npm run bench -- --suite scale` runs end to end and prints every figure issue 18 asks for,
 * at sizes small enough for CI (SCALE_*): the shapes only — each figure present, finite and
 * positive — never a timing (the figures themselves are measured on request: docs/benchmarks.md).
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../../', import.meta.url))

const SMALL = {
  SCALE_RESUME_SMALL: '20',
  SCALE_RESUME_LARGE: '100',
  SCALE_LOOP: '20',
  SCALE_CHILDREN_SMALL: '5',
  SCALE_CHILDREN_LARGE: '20',
  SCALE_LIST_RUNS: '2000',
  SCALE_FRESH_RUNS: '1000',
}

function positive(value: unknown, what: string): void {
  assert.ok(typeof value === 'number' && Number.isFinite(value) && value > 0, `${what}: ${value}`)
}

void test('the scale suite prints every figure, at CI sizes', { timeout: 600_000 }, () => {
  const result = spawnSync(
    process.execPath,
    ['--conditions=cairn-source', 'bench/main.ts', '--suite', 'scale', '--json'],
    { cwd: root, env: { ...process.env, ...SMALL }, encoding: 'utf8', timeout: 540_000 },
  )
  assert.equal(result.status, 0, `exit ${result.status}: ${result.stderr}`)
  const lines = result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
  const byStore = new Map(lines.filter((l) => 'store' in l).map((l) => [l.store, l]))
  const stores = ['memory', 'sqlite-full', 'postgres', 'mysql']
  for (const store of stores) {
    const row = byStore.get(store)
    assert.ok(row !== undefined, `a row for ${store}: ${result.stdout}`)
    for (const field of [
      'resume_small_us_per_entry',
      'resume_large_us_per_entry',
      'resume_ratio',
      'loop_plain_ms',
      'loop_suspending_ms',
      'loop_ratio',
      'loop_replayed_ms',
      'loop_replayed_ratio',
      'children_small_ms',
      'children_large_ms',
      'children_ratio',
    ])
      positive(row[field], `${store}.${field}`)
  }
  const lists = lines.flatMap((l) => (l.list_runs === undefined ? [] : [l.list_runs]))
  assert.deepEqual(
    lists.map((l) => (l as { store: string }).store),
    ['sqlite', 'postgres'],
  )
  for (const list of lists as {
    store: string
    runs: number
    median_ms: Record<string, number>
  }[]) {
    assert.equal(list.runs, 2000)
    assert.equal(Object.keys(list.median_ms).length, 4, `${list.store}: four status lists`)
    for (const [label, ms] of Object.entries(list.median_ms)) positive(ms, `${list.store} ${label}`)
  }
  const fresh = byStore.get('postgres-fresh')
  assert.ok(fresh !== undefined, 'the fresh Postgres figure')
  assert.equal(fresh.runs, 1000)
  assert.equal((fresh.runs_per_s_by_window as number[]).length, 10)
  positive(fresh.last_over_first, 'postgres-fresh.last_over_first')
})
