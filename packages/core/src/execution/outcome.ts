/**
 * Encoding and decoding outcomes: a value or an error as recorded in a checkpoint or run.
 * The body always receives the decoded form, live or replayed, so it sees the same value
 * either way.
 */
import { deserializeError, serializeError } from '../codec/index.ts'
import { encodeFitting } from '../codec/error_fitting.ts'
import type { Codec, SerializedError } from '../contracts/codec.ts'
import type { CheckpointRecord } from '../contracts/records.ts'
import type { EncodedOutcome } from './runtime.ts'

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

export function decodeOutcome(
  record: Pick<CheckpointRecord, 'status' | 'output' | 'error'>,
  codec: Codec,
): Outcome {
  if (record.status === 'failed') return { ok: false, error: decodeError(record.error, codec) }
  return { ok: true, value: record.output === null ? undefined : codec.decode(record.output) }
}

export function decodeError(text: string | null, codec: Codec): Error {
  if (text === null) return new Error('unknown error (none recorded)')
  return deserializeError(codec.decode(text) as SerializedError)
}

/**
 * Encode a thrown value as a SerializedError; never throws: a record the codec refuses is cut
 * down until it fits (codec/error_fitting.ts).
 */
export function encodeError(error: unknown, codec: Codec): string {
  return encodeFitting(serializeError(error), codec)
}

/** Encode a value; a value the codec rejects becomes a failed outcome carrying that error. */
export function encodeValue(value: unknown, codec: Codec, what: string): EncodedOutcome {
  if (value === undefined) return { ok: true, output: null }
  try {
    return { ok: true, output: codec.encode(value, what) }
  } catch (error) {
    return { ok: false, error: encodeError(error, codec) }
  }
}
