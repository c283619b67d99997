/**
 * Store failures as callers see them: E_STORE_FAILURE naming the store and the operation,
 * with the driver's error as `cause`. A write whose outcome is unknown says so in
 * `details.outcome`, so the caller knows to retry the same ops (they are idempotent) rather
 * than assume nothing happened.
 */
import { CairnError, StoreFailureError } from '@cairn/core'
import type { SqlPool } from './driver.ts'

/**
 * Thrown by drivers when the connection was lost while a commit was in flight: COMMIT, or an
 * autocommitted write. The server may have committed or not.
 */
export class OutcomeUnknown extends Error {
  constructor(cause: unknown) {
    super(`the connection was lost before the commit was confirmed: ${describe(cause)}`, { cause })
    this.name = 'OutcomeUnknown'
  }
}

export interface FailureContext {
  /** The store kind, first word of every message: `postgres`. */
  store: string
  operation: string
  /** The operation writes: its details say whether anything may have been applied. */
  writes: boolean
}

/** Cairn errors (a bad argument, a failed migration) already say what happened: kept. */
export function storeFailure(pool: SqlPool, context: FailureContext, error: unknown): Error {
  if (CairnError.isCairnError(error)) return error
  const unknown = pool.classify(error) === 'outcome_unknown'
  const outcome = unknown ? 'unknown' : 'not_applied'
  const what = unknown ? 'failed, outcome unknown (retry the same call)' : 'failed'
  return new StoreFailureError(
    `${context.store} store: ${context.operation} ${what}: ${describe(error)}`,
    {
      cause: error,
      details: {
        operation: context.operation,
        ...(context.writes ? { outcome } : {}),
        ...pool.describe(error),
      },
    },
  )
}

export function closedStoreError(store: string, operation: string): StoreFailureError {
  return new StoreFailureError(
    `${store} store: ${operation} rejected: the store is closed or was never opened`,
    { details: { operation } },
  )
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
