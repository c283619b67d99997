/**
 * The MySQL/MariaDB store writes a wave's saves before reading their checkpoints (the INSERT
 * first; a read and a second decision only when it meets a stored checkpoint:
 * shared/locked_wave_writer.ts). Differential check against the read-first writer it replaced:
 * the same random batches on two databases — saves of every status under two epochs, over
 * seeded positions and their own earlier records, finishes telling parents, cancels,
 * deliveries with dedupe ids, suspends, renewals, creates with seeds — must give the same
 * results, and leave the same checkpoints, runs and inboxes, after every batch. Half the batches
 * are a single op, which the shipped store writes in one autocommitted statement when it is a
 * plain create, save or finish (shared/lone_write.ts), going the usual way when that statement
 * cannot apply it: the same comparison covers it.
 */
import assert from 'node:assert/strict'
import type { CheckpointRecord, OpResult, StoreOp } from '@cairn/core/contracts'
import { mysqlSetup } from '../src/mysql/store_setup.ts'
import { LockedWaveWriter } from '../src/shared/locked_wave_writer.ts'
import { SqlStore } from '../src/shared/sql_store.ts'
import { MYSQL_URL, dropDatabase, mysqlTest, randomDatabase } from './helpers/mysql.ts'

const T0 = 2_200_000_000_000
const LEASE = { owner: 'engine-a', leaseMs: 30_000 }
const SEEDS = [1, 7, 42]
const ROUNDS = 60
const MAX_OPS = 30
const RUNS = Array.from({ length: 16 }, (_, i) => `r${i}`)
const STATUSES = ['completed', 'failed', 'retrying', 'waiting'] as const

type Status = (typeof STATUSES)[number]

/** Single-op batches every seed reaches: lone statements that applied, and ones that could not. */
const LONE_CASES = [
  'saveCheckpoint applied',
  'saveCheckpoint conflict',
  'saveCheckpoint fenced',
  'finishRun applied',
  'finishRun fenced',
  'createRun exists',
]

/** A deterministic generator (LCG): a failing seed replays the same batches. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

/** The store as shipped, or (`readFirst`) with the writer that reads checkpoints first. */
function storeOn(readFirst: boolean): { store: SqlStore; cleanup: () => Promise<void> } {
  const database = randomDatabase()
  const parts = mysqlSetup({ uri: MYSQL_URL, database })
  const store = new SqlStore(readFirst ? { ...parts, writer: new LockedWaveWriter(parts) } : parts)
  return { store, cleanup: () => dropDatabase(database) }
}

function checkpoint(runId: string, seq: number, status: Status, tag: number): CheckpointRecord {
  const outcome = status === 'completed' || status === 'failed'
  return {
    runId,
    seq,
    name: `step-${seq}`,
    kind: 'local',
    status,
    attempts: 1,
    order: outcome ? seq + 1 : null,
    input: null,
    output: status === 'completed' ? JSON.stringify({ tag }) : null,
    error: status === 'failed' || status === 'retrying' ? JSON.stringify({ tag }) : null,
    wakeAt: outcome ? null : T0 + 1000,
    startedAt: T0,
    updatedAt: T0 + tag,
    worker: null,
  }
}

function create(runId: string, seed?: CheckpointRecord[]): StoreOp {
  const run = { id: runId, workflow: 'w', version: 'v1', input: '{}', createdAt: T0 }
  return { type: 'createRun', run, claim: LEASE, ...(seed === undefined ? {} : { seed }) }
}

/** `x` picks the kind: saves below 0.7, finishes below 0.73, …, creates from 0.93. */
function randomOp(next: () => number, tag: number, x = next()): StoreOp {
  const pick = <T>(values: readonly T[]): T => values[Math.floor(next() * values.length)] as T
  const runId = pick(RUNS)
  const fence = { runId, epoch: next() < 0.8 ? 1 : 2 }
  const dedupeId = next() < 0.7 ? `d${Math.floor(next() * 3)}` : null
  if (x < 0.7) {
    const seq = Math.floor(next() * 4)
    return {
      type: 'saveCheckpoint',
      fence,
      checkpoint: checkpoint(runId, seq, pick(STATUSES), tag),
    }
  }
  if (x < 0.73) {
    const notify = {
      runId: pick(RUNS),
      kind: 'signal' as const,
      name: 'child',
      dedupeId,
      payload: '1',
    }
    const told = next() < 0.5 ? { notify } : {}
    return { type: 'finishRun', fence, status: 'completed', output: '1', error: null, ...told }
  }
  if (x < 0.75) return { type: 'cancelRun', runId, error: '"x"' }
  if (x < 0.85) {
    const message = { runId, kind: 'signal' as const, name: 'sig', dedupeId, payload: '2' }
    return { type: 'deliverMessage', message }
  }
  if (x < 0.9) return { type: 'renewLease', fence, leaseMs: 1000 }
  if (x < 0.93) return { type: 'suspendRun', fence, wakeAt: null, waitingOn: 'sig', inboxSeen: 0 }
  const seeded = [checkpoint(runId, 1, 'completed', tag), checkpoint(runId, 2, 'failed', tag)]
  return create(runId, next() < 0.5 ? seeded : undefined)
}

/** A single-op batch's op: a save, a finish, a create or any op, one in four each. */
function randomLoneOp(next: () => number, tag: number): StoreOp {
  const kind = Math.floor(next() * 4)
  const x = [next() * 0.7, 0.7 + next() * 0.03, 0.93 + next() * 0.07, next()][kind] as number
  return randomOp(next, tag, x)
}

/** A batch's results, or the code of the error it failed with. */
async function outcomeOf(batch: Promise<OpResult[]>): Promise<OpResult[] | string> {
  try {
    return await batch
  } catch (error) {
    return (error as { code?: string }).code ?? String(error)
  }
}

for (const seed of SEEDS) {
  mysqlTest(`insert-first saves match the read-first writer (seed ${seed})`, async () => {
    const shipped = storeOn(false)
    const readFirst = storeOn(true)
    try {
      await shipped.store.open()
      await readFirst.store.open()
      const next = random(seed)
      const first = RUNS.slice(0, 8).map((id) => create(id))
      await shipped.store.applyBatch(first, T0)
      await readFirst.store.applyBatch(first, T0)
      let tag = 0
      const seen = new Set<string>()
      // What the single-op batches met: each lone op applied, and sent the usual way.
      const alone = new Set<string>()
      for (let round = 0; round < ROUNDS; round++) {
        const size = next() < 0.5 ? 1 : 1 + Math.floor(next() * MAX_OPS)
        const ops =
          size === 1
            ? [randomLoneOp(next, ++tag)]
            : Array.from({ length: size }, () => randomOp(next, ++tag))
        const now = T0 + 10 * round
        const got = await outcomeOf(shipped.store.applyBatch(ops, now))
        const expected = await outcomeOf(readFirst.store.applyBatch(ops, now))
        assert.deepEqual(got, expected, `round ${round}: ${JSON.stringify(ops)}`)
        if (typeof got !== 'string') for (const result of got) seen.add(result.status)
        if (typeof got !== 'string' && size === 1) alone.add(`${ops[0]?.type} ${got[0]?.status}`)
        for (const id of RUNS) {
          const where = `run ${id}, round ${round}`
          const stores = [shipped.store, readFirst.store] as const
          const [a, b] = await Promise.all(stores.map((s) => s.loadCheckpoints(id)))
          assert.deepEqual(a, b, `checkpoints of ${where}`)
          const [runA, runB] = await Promise.all(stores.map((s) => s.getRun(id)))
          assert.deepEqual(runA, runB, `${where}`)
          const [inboxA, inboxB] = await Promise.all(stores.map((s) => s.loadInbox(id)))
          assert.deepEqual(inboxA, inboxB, `inbox of ${where}`)
        }
      }
      // The batches reached the cases that matter: saves over stored records, both ways.
      for (const status of ['applied', 'conflict', 'fenced'])
        assert.ok(seen.has(status), `no ${status} result in ${ROUNDS} rounds`)
      for (const lone of LONE_CASES)
        assert.ok(alone.has(lone), `no single-op batch with ${lone} in ${ROUNDS} rounds`)
    } finally {
      await shipped.store.close()
      await readFirst.store.close()
      await shipped.cleanup()
      await readFirst.cleanup()
    }
  })
}
