/**
 * The Codec contract: turns every payload (inputs, step results, errors) into text a store
 * keeps, and back. Types only.
 *
 * Guarantees of the default codec (ARCHITECTURE §3, RELIABILITY I17):
 * - `decode(encode(v))` deep-equals `v` for JSON values plus Date, BigInt, Map, Set,
 *   undefined (also in objects and arrays), NaN, ±Infinity, -0, Error (name, message, stack,
 *   code, cause, own enumerable props), RegExp, ArrayBuffer and typed arrays; or `encode`
 *   throws `NotSerializableError` naming the JSON path (functions, symbols, cycles, class
 *   instances it cannot restore, nesting deeper than the limit).
 * - Output is JSON text with no raw NUL byte and no lone surrogate (JSON escapes them), so it
 *   is stored identically by every store.
 * - Output longer than `maxBytes` (UTF-8) throws `PayloadTooLargeError`.
 */
export interface Codec {
  /**
   * Encode `value`. `what` names the payload in errors ("input of workflow x", "result of
   * step y"). Throws NotSerializableError or PayloadTooLargeError; never returns partial text.
   */
  encode(value: unknown, what?: string): string
  /** Decode text produced by `encode` of a codec with the same configuration. */
  decode(text: string): unknown
}

/**
 * A reversible text transform applied after encoding and before decoding (encryption at
 * rest, compression). `decode(encode(t)) === t` must hold.
 */
export interface PayloadTransform {
  encode(text: string): string
  decode(text: string): string
}

/** An Error as recorded in a run or checkpoint. */
export interface SerializedError {
  name: string
  message: string
  stack?: string
  code?: string
  /** Serialized cause chain (depth-capped). */
  cause?: SerializedError | { value: unknown }
  /** Extra own enumerable properties (e.g. `retryAfterMs`, `details`), when encodable. */
  props?: Record<string, unknown>
}
