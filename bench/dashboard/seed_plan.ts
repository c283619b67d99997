/**
 * The store the dashboard figures are measured on, as rows for the store's own tables:
 * 100,000 runs over 20 workflows (two versions each), spread over 30 days, with the mix of
 * statuses a busy production store has, a search attribute or two per run, and a few runs
 * with many steps (one of 10,000). Deterministic: the same plan on every store and run.
 */
import { JsonCodec, serializeError, FatalError } from '@cairn/core'

export const RUN_COUNT = 100_000
export const WORKFLOWS = Array.from({ length: 20 }, (_, i) => `wf-${String(i).padStart(2, '0')}`)
/** The run whose 10,000 steps the steps-page figures page through. */
export const BIG_RUN = { id: 'big-run-10000', steps: 10_000 }
/** Runs with 1,000 steps each, for run-detail figures on a long (not huge) timeline. */
export const LONG_RUNS = Array.from({ length: 4 }, (_, i) => ({
  id: `long-run-${i}`,
  steps: 1_000,
}))

export interface RunRow {
  key: number
  id: string
  workflow: string
  version: string
  status: string
  input: string
  output: string | null
  error: string | null
  parkReason: string | null
  waitingOn: string | null
  createdAt: number
  updatedAt: number
  finishedAt: number | null
  availableAt: number | null
  leaseOwner: string | null
  turns: number
  /** Written only where the store has tags (migration 007, store-lineage). */
  tags: string[]
}

export interface AttributeRow {
  runId: string
  name: string
  type: string
  text: string | null
  number: number | null
}

export interface CheckpointRow {
  runId: string
  seq: number
  name: string
  status: 'completed' | 'failed'
  output: string | null
  error: string | null
  startedAt: number
  updatedAt: number
}

const codec = new JsonCodec()
const DAY = 86_400_000
const STATUS_WEIGHTS: Array<[string, number]> = [
  ['completed', 70],
  ['failed', 8],
  ['waiting', 10],
  ['pending', 4],
  ['running', 2],
  ['cancelled', 4],
  ['parked', 2],
]
const FAILURE = codec.encode({
  ...serializeError(new FatalError('card declined by issuer')),
  stack: undefined,
})
const PARKED = codec.encode({
  code: 'E_WORKFLOW_NOT_REGISTERED',
  message: 'no engine runs this version',
})

/** A small deterministic PRNG (mulberry32): the same store every run. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function pickStatus(r: number): string {
  let at = r * 100
  for (const [status, weight] of STATUS_WEIGHTS) {
    if (at < weight) return status
    at -= weight
  }
  return 'completed'
}

/** Tags: a region on every fifth run, `vip` on every 50th (1 in 50: a selective tag). */
function tagsOf(key: number): string[] {
  const tags: string[] = []
  if (key % 5 === 0) tags.push(key % 2 === 0 ? 'eu' : 'us')
  if (key % 50 === 7) tags.push('vip')
  return tags
}

/** Run `key` (1-based; higher is newer) of the plan, with its attributes. */
export function planRuns(now: number): { runs: RunRow[]; attributes: AttributeRow[] } {
  const next = random(42)
  const runs: RunRow[] = []
  const attributes: AttributeRow[] = []
  const start = now - 30 * DAY
  const special = [...LONG_RUNS, BIG_RUN]
  for (let key = 1; key <= RUN_COUNT; key++) {
    const createdAt = start + Math.floor((key / RUN_COUNT) * 30 * DAY)
    const specialRun = special[RUN_COUNT - key]
    const id =
      specialRun?.id ??
      `run-${key.toString(36).padStart(4, '0')}-${Math.floor(next() * 0xffffffff)
        .toString(16)
        .padStart(8, '0')}`
    const status = specialRun === undefined ? pickStatus(next()) : 'completed'
    const workflow = WORKFLOWS[Math.floor(next() * WORKFLOWS.length)] as string
    runs.push(runRow(key, id, workflow, status, createdAt, next))
    attributes.push({
      runId: id,
      name: 'customer',
      type: 'text',
      text: `c-${Math.floor(next() * 5000)}`,
      number: null,
    })
    if (key % 3 === 0)
      attributes.push({
        runId: id,
        name: 'amount',
        type: 'number',
        text: null,
        number: Math.floor(next() * 100_000) / 100,
      })
  }
  return { runs, attributes }
}

function runRow(
  key: number,
  id: string,
  workflow: string,
  status: string,
  createdAt: number,
  next: () => number,
): RunRow {
  const finished = ['completed', 'failed', 'cancelled'].includes(status)
  const updatedAt = createdAt + Math.floor(next() * 60_000)
  const open = status === 'pending' || status === 'running' || status === 'waiting'
  return {
    key,
    id,
    workflow,
    version: key % 4 === 0 ? '2' : '1',
    status,
    input: codec.encode({ orderId: id, items: Math.floor(next() * 9) + 1 }),
    output: status === 'completed' ? codec.encode({ ok: true, total: key % 1000 }) : null,
    error:
      status === 'failed'
        ? FAILURE
        : status === 'cancelled'
          ? codec.encode({ name: 'CancelledError', message: 'run cancelled' })
          : null,
    parkReason: status === 'parked' ? PARKED : null,
    waitingOn: status === 'waiting' ? 'signal approval' : null,
    createdAt,
    updatedAt,
    finishedAt: finished ? updatedAt : null,
    availableAt: open ? (status === 'waiting' ? updatedAt + 7 * DAY : updatedAt) : null,
    leaseOwner: status === 'running' ? 'bench-worker' : null,
    turns: status === 'pending' ? 0 : 1,
    tags: tagsOf(key),
  }
}

/**
 * The steps: 1 to 6 per run that has started (a failed run's last one failed), 1,000 for
 * each long run and 10,000 for the big one.
 */
export function planCheckpoints(runs: readonly RunRow[]): CheckpointRow[] {
  const rows: CheckpointRow[] = []
  const lengths = new Map([...LONG_RUNS, BIG_RUN].map((r) => [r.id, r.steps]))
  for (const run of runs) {
    if (run.status === 'pending') continue
    const steps = lengths.get(run.id) ?? 1 + (run.key % 6)
    for (let seq = 0; seq < steps; seq++) rows.push(checkpointRow(run, seq, steps))
  }
  return rows
}

function checkpointRow(run: RunRow, seq: number, steps: number): CheckpointRow {
  const failed = run.status === 'failed' && seq === steps - 1
  const startedAt = run.createdAt + seq * 5
  return {
    runId: run.id,
    seq,
    name: `step-${seq % 50}`,
    status: failed ? 'failed' : 'completed',
    output: failed ? null : codec.encode({ seq, ok: true }),
    error: failed ? FAILURE : null,
    startedAt,
    updatedAt: startedAt + 3,
  }
}
