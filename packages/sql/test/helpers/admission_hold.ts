/**
 * Holding a store's admission transaction open just before its COMMIT (and its settling read
 * just after), so a test can place another store's statement in that window.
 */
import type { Admission, StateStore, StoreOp } from '@cairn/core/contracts'
import type { SqlPool } from '../../src/shared/driver.ts'

export const T0 = 2_200_000_000_000
export const KEY = { scope: 'sync', key: 'customer-7' }
export const LIMIT_ONE: Admission = { ...KEY, limit: 1, onFull: 'queue', maxQueueDepth: null }

/** A create of `id` under the key (LIMIT_ONE unless `admission` says otherwise). */
export function create(
  id: string,
  options: {
    tags?: string[]
    claim?: boolean
    admission?: Admission
    createdAt?: number
    leaseMs?: number
  } = {},
): StoreOp {
  const leaseMs = options.leaseMs ?? 60_000
  return {
    type: 'createRun',
    run: {
      id,
      workflow: 'sync',
      version: 'v1',
      input: '{}',
      createdAt: options.createdAt ?? T0,
      ...(options.tags ? { tags: options.tags } : {}),
    },
    admission: options.admission ?? LIMIT_ONE,
    ...(options.claim ? { claim: { owner: 'engine-a', leaseMs } } : {}),
  }
}

/** A gate: `reached` resolves when something waits at it, `open()` lets it through. */
function gate(): { wait(): Promise<void>; reached: Promise<void>; open(): void } {
  let reach = () => undefined as void
  let open = () => undefined as void
  const reached = new Promise<void>((resolve) => (reach = resolve))
  const opened = new Promise<void>((resolve) => (open = resolve))
  return {
    reached,
    open,
    wait: () => {
      reach()
      return opened
    },
  }
}

/**
 * `pool`'s transactions stop at `held`: before their COMMIT, or, with `at`, before the first
 * statement whose text `at` accepts. Once one has committed, the pool's later single
 * statements (the settling read after a commit) stop at `afterCommit`.
 */
export function holdCommits(pool: SqlPool, at?: (text: string) => boolean) {
  const held = gate()
  const afterCommit = gate()
  const transaction = pool.transaction.bind(pool)
  const query = pool.query.bind(pool)
  let committed = false
  let stopped = false
  pool.transaction = async (body) => {
    const result = await transaction(async (session) => {
      const stopping: typeof session = {
        query: async (statement) => {
          if (at !== undefined && !stopped && at(statement.text)) {
            stopped = true
            await held.wait()
          }
          return session.query(statement)
        },
      }
      const value = await body(stopping)
      if (at === undefined) await held.wait()
      return value
    })
    committed = true
    return result
  }
  pool.query = async (statement) => {
    if (committed) await afterCommit.wait()
    return query(statement)
  }
  /** Both gates open (a failed assertion must not leave a call waiting at one). */
  const openAll = () => {
    held.open()
    afterCommit.open()
  }
  return { held, afterCommit, openAll }
}

export async function statusOf(store: StateStore, id: string): Promise<string> {
  return (await store.getRun(id))?.status ?? 'absent'
}

/** The finish of `runId` at epoch 1 (created with a claim), naming `admission` when given. */
export function finishOp(runId: string, admission?: { scope: string; key: string }): StoreOp {
  return {
    type: 'finishRun',
    fence: { runId, epoch: 1 },
    status: 'completed',
    output: '"done"',
    error: null,
    ...(admission ? { admission } : {}),
  }
}
