/**
 * A thrown value as the wire carries it: name, message, code and stack for any reader, whether
 * to retry (FatalError: never; RetryableError: yes, no sooner than its retryAfterMs), and the
 * whole error codec-encoded for a TypeScript engine to rebuild (cause chain, fields).
 */
import { serializeError } from '@cairn/core/codec'
import { FatalError, RetryableError, SchemaValidationError } from '@cairn/core/errors'
import type { Codec } from '@cairn/core/contracts'
import type { WireError } from '@cairn/core/wire'

export function toWireError(thrown: unknown, codec: Codec): WireError {
  const serialized = serializeError(thrown)
  const error: WireError = { name: serialized.name, message: serialized.message }
  if (serialized.code !== undefined) error.code = serialized.code
  if (serialized.stack !== undefined) error.stack = serialized.stack
  // A schema mismatch fails the same way every time (docs/validation.md): never retried.
  if (FatalError.is(thrown) || SchemaValidationError.is(thrown)) error.retryable = false
  if (RetryableError.is(thrown)) {
    error.retryable = true
    const after = (thrown as RetryableError).retryAfterMs
    if (after !== undefined && Number.isInteger(after) && after >= 0) error.retryAfterMs = after
  }
  try {
    error.detail = codec.encode(serialized, 'error')
  } catch {
    // The error's own fields do not encode (too large, a transform failing): the summary above still goes.
  }
  return error
}
