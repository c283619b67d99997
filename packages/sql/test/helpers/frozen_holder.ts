/**
 * A "frozen" lock holder for the idle-in-transaction tests: a store transaction locks a row,
 * then goes quiet longer than the store's timeout (as a SIGSTOPped process would), then tries
 * to go on. Asserts that another session takes the row's lock without waiting while the holder
 * is still quiet, and that the holder cannot go on once it resumes.
 */
import assert from 'node:assert/strict'
import type { SqlPool } from '../../src/shared/driver.ts'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface FrozenHolderCase {
  /** The store's pool, its idle-in-transaction timeout set to 1 s. */
  pool: SqlPool
  /** `SELECT … FOR UPDATE` of the row, run by the holder. */
  lockSql: string
  /** The same with NOWAIT, run by another session: resolves with the row's id, as text. */
  lockNowait(): Promise<string[]>
}

export async function assertFrozenHolderLosesItsLock(c: FrozenHolderCase): Promise<void> {
  let holderFailure: unknown = null
  const holder = c.pool
    .transaction(async (session) => {
      await session.query({ text: c.lockSql, values: [] })
      await pause(3_000)
      await session.query({ text: 'SELECT 1', values: [] })
    })
    .catch((error: unknown) => (holderFailure = error))
  await pause(2_000)
  assert.deepEqual(await c.lockNowait(), ['held'], 'the lock is free while the holder is quiet')
  await holder
  assert.ok(holderFailure !== null, 'the frozen transaction cannot go on once it resumes')
}
