/**
 * Recording a failure must never fail (a run that cannot record why it failed would wedge, or
 * take the engine process down on every restart). An error record the codec refuses — a
 * 5 MiB message, a huge stack, props past its size limit — is cut down until it fits: first
 * each text to a diagnostic length (props dropped, causes trimmed the same way), then to name,
 * a short message and code. Every cut says so in the message.
 */
import type { Codec, SerializedError } from '../contracts/codec.ts'

const MAX_MESSAGE_CHARS = 16 * 1024
const MAX_STACK_CHARS = 16 * 1024
const MAX_NAME_CHARS = 256
const MINIMAL_MESSAGE_CHARS = 1024

/** `serialized` encoded by `codec`, cut down as far as it takes. Never throws. */
export function encodeFitting(serialized: SerializedError, codec: Codec): string {
  for (const shape of [serialized, trimmed(serialized), minimal(serialized)]) {
    try {
      return codec.encode(shape, 'error')
    } catch {
      // Too large or refused: try a smaller shape.
    }
  }
  // A codec that refuses even a name and a short message is broken; record plain JSON.
  return JSON.stringify({ name: 'Error', message: 'the error could not be encoded by the codec' })
}

function trimmed(error: SerializedError): SerializedError {
  const out: SerializedError = {
    name: cut(error.name, MAX_NAME_CHARS),
    message: cut(error.message, MAX_MESSAGE_CHARS),
  }
  if (error.stack !== undefined) out.stack = cut(error.stack, MAX_STACK_CHARS)
  if (error.code !== undefined) out.code = cut(error.code, MAX_NAME_CHARS)
  if (error.cause !== undefined && 'message' in error.cause) out.cause = trimmed(error.cause)
  return out
}

function minimal(error: SerializedError): SerializedError {
  const out: SerializedError = {
    name: cut(String(error.name), MAX_NAME_CHARS),
    message: cut(String(error.message), MINIMAL_MESSAGE_CHARS),
  }
  if (typeof error.code === 'string') out.code = cut(error.code, MAX_NAME_CHARS)
  return out
}

function cut(text: string, max: number): string {
  if (text.length <= max) return text
  return `${text.slice(0, max)}… (truncated: ${text.length} characters in all)`
}
