/**
 * A webhook callback's body: read from the socket with the size limit enforced as it arrives
 * (a declared length over the limit is refused before reading; a body that grows past it stops
 * being read), then turned into the value the run's `wait()` receives, by content type.
 */
import type { IncomingMessage } from 'node:http'

/** Why a body was refused: its HTTP status and a stable code. */
export interface BodyRefusal {
  status: 400 | 413 | 415
  code: 'E_INVALID_BODY' | 'E_PAYLOAD_TOO_LARGE' | 'E_UNSUPPORTED_MEDIA_TYPE'
  message: string
}

export type BodyResult = { ok: true; value: unknown } | { ok: false; refusal: BodyRefusal }
type TextResult = { ok: true; value: string } | { ok: false; refusal: BodyRefusal }

/** The raw bytes, or a 413 once more than `maxBytes` arrived (the rest is left unread). */
export function readBodyBytes(
  request: IncomingMessage,
  maxBytes: number,
): Promise<Buffer | BodyRefusal> {
  const declared = Number(request.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve(tooLarge(maxBytes))
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = () => {
      request.off('data', onData)
      request.off('end', onEnd)
      request.off('error', onError)
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        // Paused, not destroyed: the 413 still reaches the caller, then the connection closes.
        request.pause()
        stop()
        resolve(tooLarge(maxBytes))
      } else chunks.push(chunk)
    }
    const onEnd = () => {
      stop()
      resolve(Buffer.concat(chunks, size))
    }
    const onError = (error: Error) => {
      stop()
      reject(error)
    }
    request.on('data', onData)
    request.on('end', onEnd)
    request.on('error', onError)
  })
}

/**
 * The value delivered to the run: JSON (`application/json`, `…+json`) parsed; a form
 * (`application/x-www-form-urlencoded`) as an object of strings (a repeated field: an array);
 * text (`text/*`, XML) as a string; anything else as its bytes (a Uint8Array). No body is null.
 */
export function bodyValue(bytes: Buffer, contentType: string | undefined): BodyResult {
  if (bytes.length === 0) return { ok: true, value: null }
  const { type, charset } = parseContentType(contentType)
  if (!isTextual(type)) return { ok: true, value: new Uint8Array(bytes) }
  const text = decodeText(bytes, charset)
  if (!text.ok) return text
  if (type === 'application/x-www-form-urlencoded')
    return { ok: true, value: formFields(text.value) }
  if (!isJson(type)) return text
  try {
    return { ok: true, value: JSON.parse(text.value) as unknown }
  } catch {
    return refused(400, 'E_INVALID_BODY', 'the body is not valid JSON')
  }
}

function parseContentType(header: string | undefined): { type: string; charset: string } {
  const [type = '', ...params] = (header ?? '').split(';')
  const charset = params
    .map((p) => p.trim().toLowerCase())
    .find((p) => p.startsWith('charset='))
    ?.slice('charset='.length)
    .replace(/^"|"$/g, '')
  return { type: type.trim().toLowerCase(), charset: charset ?? 'utf-8' }
}

function isJson(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

function isTextual(type: string): boolean {
  return (
    isJson(type) ||
    type.startsWith('text/') ||
    type === 'application/x-www-form-urlencoded' ||
    type === 'application/xml' ||
    (type.startsWith('application/') && type.endsWith('+xml'))
  )
}

/** Strict decoding: a body that is not valid text in its charset is refused, never mangled. */
function decodeText(bytes: Buffer, charset: string): TextResult {
  let decoder: InstanceType<typeof TextDecoder>
  try {
    decoder = new TextDecoder(charset, { fatal: true })
  } catch {
    return refused(
      415,
      'E_UNSUPPORTED_MEDIA_TYPE',
      `charset ${JSON.stringify(charset)} is not supported`,
    )
  }
  try {
    return { ok: true, value: decoder.decode(bytes) }
  } catch {
    return refused(400, 'E_INVALID_BODY', `the body is not valid ${charset} text`)
  }
}

/** Fields defined, not assigned: a field named `__proto__` is data like any other. */
function formFields(text: string): Record<string, string | string[]> {
  const fields: Record<string, string | string[]> = {}
  for (const [name, value] of new URLSearchParams(text)) {
    const previous = Object.hasOwn(fields, name) ? fields[name] : undefined
    const next =
      previous === undefined
        ? value
        : Array.isArray(previous)
          ? [...previous, value]
          : [previous, value]
    Object.defineProperty(fields, name, {
      value: next,
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return fields
}

function tooLarge(maxBytes: number): BodyRefusal {
  return {
    status: 413,
    code: 'E_PAYLOAD_TOO_LARGE',
    message: `the body is larger than ${maxBytes} bytes`,
  }
}

function refused(status: BodyRefusal['status'], code: BodyRefusal['code'], message: string) {
  return { ok: false as const, refusal: { status, code, message } }
}
