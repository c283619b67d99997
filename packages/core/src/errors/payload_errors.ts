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
