/**
 * Base of every error Cairn throws. Each carries a stable `E_*` code; `is()` checks work
 * across package copies and realms (two copies of @cairn/core break `instanceof`), by a
 * global symbol brand and the code.
 */
const BRAND = Symbol.for('cairn.error')

export interface CairnErrorOptions {
  cause?: unknown
  details?: Record<string, unknown>
}

export class CairnError extends Error {
  /** Stable machine-readable code, e.g. `E_RUN_NOT_FOUND`. */
  readonly code: string
  /** Structured facts about the failure (ids, limits, paths). Never payload contents. */
  readonly details: Record<string, unknown>

  constructor(code: string, message: string, options: CairnErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.details = options.details ?? {}
    Object.defineProperty(this, BRAND, { value: true })
  }

  /** True for any Cairn error (from any copy of the package). */
  static isCairnError(err: unknown): err is CairnError {
    return (
      typeof err === 'object' && err !== null && (err as Record<symbol, unknown>)[BRAND] === true
    )
  }
}

/**
 * Builds the cross-realm `is` guard of one error class, keyed by its code. An error a
 * workflow receives from its history (a recorded step failure, a signal timeout) is rebuilt
 * from its recorded form and carries the code but not the class: it matches too.
 */
export function guardFor<T extends CairnError>(code: string) {
  return (err: unknown): err is T =>
    (CairnError.isCairnError(err) || err instanceof Error) &&
    (err as { code?: unknown }).code === code
}
