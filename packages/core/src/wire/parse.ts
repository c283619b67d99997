/**
 * Reading a wire message from a transport: JSON text, bytes, or an object the transport already
 * decoded. A message that breaks a rule of its shape (shapes.ts) is refused whole with where and
 * why — never repaired, never partly used — so a poison message costs one refusal and the
 * consumer goes on. The result is a fresh object holding only the shape's fields.
 */
import { ErrorCodes } from '../errors/codes.ts'
import { kind, MAX_LIST_LENGTH } from './fields.ts'
import type { WireMessage, WireMessageType } from './messages.ts'
import { SHAPES, type Shape, type Variants } from './shapes.ts'

/** Largest message read by default (16 MiB of UTF-8): payloads are bounded by the codec's own limit. */
export const DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024

export interface WireRefusal {
  /** `E_WIRE_VERSION` for a message of a format version this code does not read, else `E_WIRE_INVALID`. */
  code: typeof ErrorCodes.WIRE_INVALID | typeof ErrorCodes.WIRE_VERSION
  /** Where in the message, e.g. `outcome.error.name`; empty for the message itself. */
  path: string
  reason: string
  /** The message's `type` when it had a known one. */
  type: WireMessageType | null
}

export type WireParse<T extends WireMessage = WireMessage> =
  { ok: true; message: T } | { ok: false; refusal: WireRefusal }

export interface WireParseOptions<T extends WireMessageType> {
  /** The types this reader takes; another is refused. Default: any. */
  expect?: readonly T[]
  /** Refuse text or bytes longer than this. Default DEFAULT_MAX_MESSAGE_BYTES. */
  maxBytes?: number
}

const DECODER = new TextDecoder('utf-8', { fatal: true })

export function parseWireMessage<T extends WireMessageType = WireMessageType>(
  input: unknown,
  options: WireParseOptions<T> = {},
): WireParse<Extract<WireMessage, { type: T }>> {
  try {
    return parseUnchecked(input, options)
  } catch {
    // An object from a transport can throw when read (a getter, a revoked proxy): poison too.
    return refuse('', 'could not be read', null)
  }
}

function parseUnchecked<T extends WireMessageType>(
  input: unknown,
  options: WireParseOptions<T>,
): WireParse<Extract<WireMessage, { type: T }>> {
  const decoded = decode(input, options.maxBytes ?? DEFAULT_MAX_MESSAGE_BYTES)
  if ('refusal' in decoded) return decoded
  const value = decoded.value
  if (!isJsonObject(value)) return refuse('', `must be a JSON object, got ${kind(value)}`, null)
  if (value.v !== 1) {
    return {
      ok: false,
      refusal: {
        code: ErrorCodes.WIRE_VERSION,
        path: 'v',
        reason: `format version ${JSON.stringify(value.v)} is not read here (this code reads 1)`,
        type: null,
      },
    }
  }
  const type = value.type
  if (typeof type !== 'string' || !Object.hasOwn(SHAPES, type))
    return refuse('type', `must be one of ${Object.keys(SHAPES).join(', ')}`, null)
  const known = type as WireMessageType
  if (options.expect !== undefined && !(options.expect as readonly string[]).includes(known))
    return refuse('type', `a ${known} message is not expected here`, known)
  const checked = checkShape(value, SHAPES[known], '')
  if ('refusal' in checked) return refuse(checked.refusal.path, checked.refusal.reason, known)
  return { ok: true, message: checked.value as unknown as Extract<WireMessage, { type: T }> }
}

type Checked = { value: Record<string, unknown> } | { refusal: { path: string; reason: string } }

function checkShape(value: Record<string, unknown>, shape: Shape, at: string): Checked {
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(shape.required, key) && !Object.hasOwn(shape.optional ?? {}, key))
      return { refusal: { path: join(at, key), reason: 'is not a field of this message' } }
  }
  for (const [key, check] of Object.entries(shape.required)) {
    if (!Object.hasOwn(value, key))
      return { refusal: { path: join(at, key), reason: 'is missing' } }
    const field = checkField(value[key], check, join(at, key))
    if ('refusal' in field) return field
    out[key] = field.value
  }
  for (const [key, check] of Object.entries(shape.optional ?? {})) {
    if (!Object.hasOwn(value, key)) continue
    const field = checkField(value[key], check, join(at, key))
    if ('refusal' in field) return field
    out[key] = field.value
  }
  return { value: out }
}

function checkField(
  value: unknown,
  check: Shape['required'][string],
  path: string,
): { value: unknown } | { refusal: { path: string; reason: string } } {
  if (typeof check === 'function') {
    const own = copy(value)
    const reason = check(own)
    return reason === null ? { value: own } : { refusal: { path, reason } }
  }
  if (!isJsonObject(value))
    return { refusal: { path, reason: `must be an object, got ${kind(value)}` } }
  if ('by' in check) return checkVariant(value, check, path)
  return checkShape(value, check, path)
}

function checkVariant(value: Record<string, unknown>, variants: Variants, path: string): Checked {
  const tag = value[variants.by]
  if (typeof tag !== 'string' || !Object.hasOwn(variants.shapes, tag)) {
    const allowed = Object.keys(variants.shapes).map((s) => JSON.stringify(s))
    return { refusal: { path: join(path, variants.by), reason: `must be ${allowed.join(' or ')}` } }
  }
  return checkShape(value, variants.shapes[tag] as Shape, path)
}

function decode(
  input: unknown,
  maxBytes: number,
): { value: unknown } | { ok: false; refusal: WireRefusal } {
  let text: string
  if (typeof input === 'string') {
    if (Buffer.byteLength(input, 'utf8') > maxBytes) return tooLarge(maxBytes)
    text = input
  } else if (input instanceof Uint8Array) {
    if (input.byteLength > maxBytes) return tooLarge(maxBytes)
    try {
      text = DECODER.decode(input)
    } catch {
      return refuse('', 'is not valid UTF-8', null)
    }
  } else {
    return { value: input }
  }
  try {
    return { value: JSON.parse(text) as unknown }
  } catch {
    return refuse('', 'is not JSON', null)
  }
}

/** A plain JSON object: not an array, not a class instance, no hidden prototype fields. */
function isJsonObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false
  const proto = Object.getPrototypeOf(value) as unknown
  return proto === Object.prototype || proto === null
}

/**
 * Arrays are copied before they are checked, so the message shares nothing with the input and
 * holds exactly what was checked (a getter or proxy read twice could answer differently). At
 * most one item past the longest list is read: the check refuses the copy as too long.
 */
function copy(value: unknown): unknown {
  if (!Array.isArray(value)) return value
  const length = Math.min(value.length, MAX_LIST_LENGTH + 1)
  return Array.from({ length }, (_, i) => (value as unknown[])[i])
}

function join(at: string, key: string): string {
  return at === '' ? key : `${at}.${key}`
}

function tooLarge(maxBytes: number): { ok: false; refusal: WireRefusal } {
  return refuse('', `is larger than ${maxBytes} bytes`, null)
}

function refuse(
  path: string,
  reason: string,
  type: WireMessageType | null,
): { ok: false; refusal: WireRefusal } {
  return { ok: false, refusal: { code: ErrorCodes.WIRE_INVALID, path, reason, type } }
}
