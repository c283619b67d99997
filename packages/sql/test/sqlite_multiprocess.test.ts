/** Several processes on one database file: first open races, claims across processes. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { latestRevision } from '../src/sqlite/migrations/index.ts'
import { startChild } from './helpers/child_process.ts'
import { makeTempDir } from './helpers/temp_dir.ts'

const PROCESSES = 4

void test('several processes opening one fresh file at once all succeed, migrated once', async () => {
  const dir = await makeTempDir()
  try {
    const path = dir.file('race.db')
    const children = Array.from({ length: PROCESSES }, () => startChild('open_store.ts', [path]))
    await Promise.all(children.map((child) => child.waitForLine((line) => line === 'ready')))
    for (const child of children) child.process.stdin?.write('go\n')
    const exits = await Promise.all(children.map((child) => child.exited))
    children.forEach((child, i) => {
      assert.deepEqual(exits[i], { code: 0, signal: null }, `child ${i} failed: ${child.stderr()}`)
      assert.ok(
        child.lines.includes(`opened revision=${latestRevision}`),
        `child ${i} output: ${child.lines.join(' | ')}`,
      )
    })
  } finally {
    await dir.remove()
  }
})

void test('claims made by several processes on one file never take the same run twice', async () => {
  const dir = await makeTempDir()
  try {
    const path = dir.file('claims.db')
    const ids = await seedRuns(path, 60)
    const children = Array.from({ length: 3 }, (_, i) =>
      startChild('claimer.ts', [path, `owner-${i}`]),
    )
    await Promise.all(children.map((child) => child.waitForLine((line) => line === 'ready')))
    for (const child of children) child.process.stdin?.write('go\n')
    const exits = await Promise.all(children.map((child) => child.exited))
    exits.forEach((exit, i) =>
      assert.deepEqual(exit, { code: 0, signal: null }, children[i]?.stderr()),
    )
    const claimed = children.flatMap((child) => child.lines.filter((l) => l.startsWith('claimed ')))
    const claimedIds = claimed.map((line) => line.split(' ')[1])
    assert.deepEqual([...claimedIds].sort(), ids, 'every run claimed exactly once')
    assert.ok(
      claimed.every((line) => line.endsWith(' 1')),
      'every claim made epoch 1',
    )
  } finally {
    await dir.remove()
  }
})

async function seedRuns(path: string, count: number): Promise<string[]> {
  const store = createSqliteStore({ path })
  await store.open()
  const ids = Array.from({ length: count }, (_, i) => `run-${String(i).padStart(3, '0')}`)
  const run = (id: string) => ({
    id,
    workflow: 'shared',
    version: 'v1',
    input: '{}',
    createdAt: Date.now() - 1_000,
  })
  await store.applyBatch(
    ids.map((id) => ({ type: 'createRun', run: run(id) })),
    Date.now() - 1_000,
  )
  await store.close()
  return ids
}
