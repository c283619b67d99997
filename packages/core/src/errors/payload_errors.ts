/**
 * Errors the codec raises: the value is rejected at the boundary, nothing is written.
 */
import { CairnError, guardFor } from './cairn_error.ts'
import { ErrorCodes } from './codes.ts'

/** The value holds something the codec cannot round-trip (function, symbol, cycle, …). */
export class NotSerializableError extends CairnError {
  static readonly code = ErrorCodes.NOT_SERIALIZABLE
  static is = guardFor<NotSerializableError>(ErrorCodes.NOT_SERIALIZABLE)
  /** JSON path of the offending value, e.g. `$.items[3].callback`. */
  readonly path: string
  constructor(path: string, reason: string) {
    super(ErrorCodes.NOT_SERIALIZABLE, `value at ${path} is not serializable: ${reason}`, {
      details: { path, reason },
    })
    this.path = path
  }
}

/** The encoded value exceeds the configured size limit. */
export class PayloadTooLargeError extends CairnError {
  static readonly code = ErrorCodes.PAYLOAD_TOO_LARGE
  static is = guardFor<PayloadTooLargeError>(ErrorCodes.PAYLOAD_TOO_LARGE)
  readonly sizeBytes: number
  readonly limitBytes: number
  constructor(what: string, sizeBytes: number, limitBytes: number) {
    super(
      ErrorCodes.PAYLOAD_TOO_LARGE,
      `${what} is ${sizeBytes} bytes encoded, over the limit of ${limitBytes} bytes`,
      { details: { what, sizeBytes, limitBytes } },
    )
    this.sizeBytes = sizeBytes
    this.limitBytes = limitBytes
  }
}

/** One problem a schema found: its message and where in the value (keys and indexes). */
export interface SchemaIssue {
  message: string
  path: Array<string | number>
}

/**
 * A value did not match the Standard Schema it is declared with (a workflow's `inputSchema`, a
 * step's `input` or `output`): `details.issues` lists what the schema said, `details.subject`
 * what was checked. Never retried — the same value fails the same way.
 */
export class SchemaValidationError extends CairnError {
  static readonly code = ErrorCodes.SCHEMA_VALIDATION
  static is = guardFor<SchemaValidationError>(ErrorCodes.SCHEMA_VALIDATION)
  readonly issues: SchemaIssue[]
  constructor(subject: string, issues: SchemaIssue[], details: Record<string, unknown> = {}) {
    super(
      ErrorCodes.SCHEMA_VALIDATION,
      `${subject} does not match its schema: ${summary(issues)}`,
      {
        details: { subject, ...details, issues },
      },
    )
    this.issues = issues
  }
}

/** The first few issues, `path: message`, for a message a person reads. */
function summary(issues: readonly SchemaIssue[]): string {
  const shown = issues.slice(0, 5).map(({ message, path }) => {
    const where = path.map((key, i) =>
      typeof key === 'number' ? `[${key}]` : i === 0 ? key : `.${key}`,
    )
    return where.length > 0 ? `${where.join('')}: ${message}` : message
  })
  const more = issues.length > shown.length ? ` (and ${issues.length - shown.length} more)` : ''
  return `${shown.join('; ')}${more}`
}
