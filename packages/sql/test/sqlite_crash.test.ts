/**
 * Acknowledged ⇒ durable: a child streaming applyBatch calls is SIGKILLed mid-stream; after
 * reopening, the database passes integrity_check and every batch the child saw resolve is
 * there, with nothing half-applied.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { setTimeout as sleep } from 'node:timers/promises'
import { DatabaseSync } from 'node:sqlite'
import { createSqliteStore } from '@cairn/sql/sqlite'
import { startChild } from './helpers/child_process.ts'
import { makeTempDir } from './helpers/temp_dir.ts'

const BATCH = 20

for (const synchronous of ['full', 'normal'] as const) {
  void test(`synchronous=${synchronous}: SIGKILL mid-stream loses no acknowledged batch`, async () => {
    const dir = await makeTempDir()
    try {
      const path = dir.file('crash.db')
      for (let round = 0; round < 3; round++) await killOnce(path, `run-${round}`, synchronous)
    } finally {
      await dir.remove()
    }
  })
}

async function killOnce(
  path: string,
  runId: string,
  synchronous: 'full' | 'normal',
): Promise<void> {
  const child = startChild('checkpoint_writer.ts', [path, runId, synchronous])
  await child.waitForLine((line) => line === 'started')
  await sleep(150 + Math.floor(Math.random() * 250))
  child.process.kill('SIGKILL')
  const exit = await child.exited
  assert.equal(exit.signal, 'SIGKILL', `the writer must die by SIGKILL, not: ${child.stderr()}`)
  const acked = child.lines
    .filter((line) => line.startsWith('committed '))
    .map((line) => Number(line.slice(10)))
  assert.ok(acked.length > 0, 'the writer acknowledged no batch before the kill')
  assertIntegrity(path)
  await assertDurable(path, runId, Math.max(...acked))
}

function assertIntegrity(path: string): void {
  const db = new DatabaseSync(path)
  try {
    const rows = db.prepare('PRAGMA integrity_check').all() as { integrity_check: string }[]
    assert.deepEqual(
      rows.map((row) => row.integrity_check),
      ['ok'],
    )
  } finally {
    db.close()
  }
}

/** Every acknowledged seq is there, and what is there is whole batches, dense from 0. */
async function assertDurable(path: string, runId: string, lastAcked: number): Promise<void> {
  const store = createSqliteStore({ path })
  await store.open()
  try {
    const seqs = (await store.loadCheckpoints(runId)).map((row) => row.seq)
    assert.ok(
      seqs.length > lastAcked,
      `acknowledged up to seq ${lastAcked}, found ${seqs.length} rows`,
    )
    assert.equal(seqs.length % BATCH, 0, 'a batch is all or nothing')
    assert.deepEqual(
      seqs,
      Array.from({ length: seqs.length }, (_, i) => i),
      'seqs dense from 0',
    )
  } finally {
    await store.close()
  }
}
