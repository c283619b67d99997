/** Text and integers round-trip exactly: astral characters, NUL bytes, big payloads, ms times. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { CheckpointRecord } from '@cairn/core/contracts'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { makeTempDir } from './helpers/temp_dir.ts'

const NOW = 1_700_000_000_123
const ODD_TEXTS = [
  'run-\u{1F600}-\u{10FFFF}',
  'nul\u0000inside\u0000',
  '\u00e9\uFFFD\u4e2d',
  ' spaced  ',
  '',
]

void test('ids, names and payloads with astral characters and NUL bytes round-trip exactly', async () => {
  const dir = await makeTempDir()
  const store = createSqliteStore({ path: dir.file('values.db') })
  try {
    await store.open()
    for (const [i, text] of ODD_TEXTS.entries()) {
      const id = `${text}#${i}`
      const big = JSON.stringify({ text, blob: 'z\u{1F680}'.repeat(100_000) })
      const create = {
        type: 'createRun' as const,
        run: { id, workflow: text, version: text, input: big, createdAt: NOW },
        claim: { owner: text, leaseMs: 1 },
      }
      const cp: CheckpointRecord = {
        runId: id,
        seq: 2 ** 31 + i,
        name: text,
        kind: 'local',
        status: 'completed',
        attempts: 1,
        order: 1,
        input: big,
        output: big,
        error: JSON.stringify(text),
        wakeAt: Number.MAX_SAFE_INTEGER,
        startedAt: NOW,
        updatedAt: NOW,
        worker: null,
      }
      const results = await store.applyBatch(
        [create, { type: 'saveCheckpoint', fence: { runId: id, epoch: 1 }, checkpoint: cp }],
        NOW,
      )
      assert.deepEqual(
        results.map((r) => r.status),
        ['applied', 'applied'],
      )
      const run = await store.getRun(id)
      assert.deepEqual(
        [run?.id, run?.workflow, run?.version, run?.leaseOwner, run?.input === big],
        [id, text, text, text, true],
      )
      assert.deepEqual(await store.loadCheckpoints(id), [cp])
      assert.equal((await store.listRuns({ workflow: text })).runs[0]?.id, id)
      assert.equal(await store.getRun(`${text}#${i}x`), null, 'a longer id is another run')
    }
  } finally {
    await store.close()
    await dir.remove()
  }
})

void test('a checkpoint under the fence of another run is refused; the batch applies nothing', async () => {
  const dir = await makeTempDir()
  const store = createSqliteStore({ path: dir.file('mismatch.db') })
  try {
    await store.open()
    const run = (id: string) => ({ id, workflow: 'w', version: 'v1', input: '{}', createdAt: NOW })
    const claim = { owner: 'o', leaseMs: 1_000 }
    await store.applyBatch(
      [
        { type: 'createRun', run: run('a'), claim },
        { type: 'createRun', run: run('b'), claim },
      ],
      NOW,
    )
    const cp: CheckpointRecord = {
      runId: 'b',
      seq: 0,
      name: 's',
      kind: 'local',
      status: 'completed',
      attempts: 1,
      order: 1,
      input: null,
      output: null,
      error: null,
      wakeAt: null,
      startedAt: NOW,
      updatedAt: NOW,
      worker: null,
    }
    const ops = [
      { type: 'createRun' as const, run: run('c') },
      { type: 'saveCheckpoint' as const, fence: { runId: 'a', epoch: 1 }, checkpoint: cp },
    ]
    await assert.rejects(
      store.applyBatch(ops, NOW),
      (err: { code?: string }) => err.code === 'E_INVALID_ARGUMENT',
    )
    assert.equal(await store.getRun('c'), null)
    assert.deepEqual(await store.loadCheckpoints('b'), [])
  } finally {
    await store.close()
    await dir.remove()
  }
})
