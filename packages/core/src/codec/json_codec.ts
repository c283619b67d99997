/**
 * The default Codec: readable JSON for plain data, tagged JSON for the rest (docs/codec.md).
 * Plain data (the usual step result) takes the fast path: one checking walk, then the
 * runtime's JSON.stringify / JSON.parse, with no copy and no reviving walk.
 */
import type { Codec, PayloadTransform } from '../contracts/codec.ts'
import { InvalidArgumentError } from '../errors/api_errors.ts'
import { PayloadTooLargeError } from '../errors/payload_errors.ts'
import { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
import { reviveValue } from './decode_value.ts'
import { encodeValue, maxValuesFor, tooManyValues, type EncodeLimits } from './encode_value.ts'
import { NOT_PLAIN, plainJsonValues } from './plain_json.ts'

export const DEFAULT_MAX_BYTES = 4 * 1024 * 1024
export const DEFAULT_MAX_DEPTH = 512
/** The walks recurse once per level; much deeper than this can exhaust the call stack. */
export const MAX_MAX_DEPTH = 1000

export interface JsonCodecOptions {
  /** Largest encoded payload in UTF-8 bytes, before and after `transform`. Default 4 MiB. */
  maxBytes?: number
  /** Deepest nesting of objects, arrays, Maps, … in a payload. Default 512, at most 1000. */
  maxDepth?: number
  /** Applied to the JSON text after encoding and before decoding (encryption, compression). */
  transform?: PayloadTransform
}

// A misspelt `transform` would store every payload in clear text, without a word.
const CODEC_OPTIONS: OptionsSpec = {
  call: 'createCodec',
  known: optionNames<JsonCodecOptions>({ maxBytes: true, maxDepth: true, transform: true }),
}

// The encoder writes every `$t` key as exactly this text, and only tags carry one.
const TAG_KEY_TEXT = '"$t"'

export class JsonCodec implements Codec {
  readonly maxBytes: number
  readonly maxDepth: number
  readonly #transform: PayloadTransform | undefined
  readonly #maxValues: number

  constructor(options: JsonCodecOptions = {}) {
    checkOptionKeys(options, CODEC_OPTIONS)
    this.maxBytes = integerOption(
      'maxBytes',
      options.maxBytes === undefined ? DEFAULT_MAX_BYTES : options.maxBytes,
      Number.MAX_SAFE_INTEGER,
    )
    const maxDepth = options.maxDepth === undefined ? DEFAULT_MAX_DEPTH : options.maxDepth
    this.maxDepth = integerOption('maxDepth', maxDepth, MAX_MAX_DEPTH)
    this.#transform = checkedTransform(options.transform)
    this.#maxValues = maxValuesFor(this.maxBytes)
  }

  encode(value: unknown, what = 'payload'): string {
    const json = this.#toJson(value, what)
    this.#checkSize(json, what)
    return this.#transform === undefined ? json : this.#transformed(json, what)
  }

  decode(text: string): unknown {
    const json = this.#transform === undefined ? text : this.#transform.decode(text)
    const parsed: unknown = JSON.parse(json)
    return json.includes(TAG_KEY_TEXT) ? reviveValue(parsed) : parsed
  }

  #toJson(value: unknown, what: string): string {
    const values = plainValuesOrNotPlain(value, this.maxDepth, this.#maxValues)
    if (values >= 0 && values <= this.#maxValues) return JSON.stringify(value)
    const limits: EncodeLimits = { maxDepth: this.maxDepth, maxBytes: this.maxBytes, what }
    if (values > this.#maxValues) throw tooManyValues(limits, values)
    return JSON.stringify(encodeValue(value, limits))
  }

  #checkSize(text: string, what: string): void {
    // A UTF-16 code unit is at most 3 UTF-8 bytes: most texts are cleared without counting.
    if (text.length * 3 <= this.maxBytes) return
    const size = Buffer.byteLength(text, 'utf8')
    if (size > this.maxBytes) throw new PayloadTooLargeError(what, size, this.maxBytes)
  }

  #transformed(json: string, what: string): string {
    const text = (this.#transform as PayloadTransform).encode(json)
    // Stores keep text byte for byte only without NUL and lone surrogates (records.ts).
    if (typeof text !== 'string' || text.includes('\0') || !text.isWellFormed()) {
      throw new TypeError('codec transform must return text without NUL or lone surrogates')
    }
    this.#checkSize(text, what)
    return text
  }
}

/**
 * The fast path's answer, or NOT_PLAIN when the value's own code threw while it was read (a
 * getter, a Proxy trap): the tagged path reads it again and says where, as E_NOT_SERIALIZABLE.
 */
function plainValuesOrNotPlain(value: unknown, maxDepth: number, maxValues: number): number {
  try {
    return plainJsonValues(value, maxDepth, maxValues)
  } catch {
    return NOT_PLAIN
  }
}

/** The default codec, or one configured by `options`. */
export function createCodec(options: JsonCodecOptions = {}): JsonCodec {
  return new JsonCodec(options)
}

function integerOption(name: string, value: number, max: number): number {
  if (Number.isSafeInteger(value) && value > 0 && value <= max) return value
  const message = `codec option ${name} must be an integer from 1 to ${max}, got ${String(value)}`
  throw new InvalidArgumentError(message, { details: { option: name } })
}

function checkedTransform(transform: PayloadTransform | undefined): PayloadTransform | undefined {
  if (transform === undefined) return undefined
  if (typeof transform?.encode === 'function' && typeof transform.decode === 'function')
    return transform
  throw new InvalidArgumentError('codec option transform must have encode and decode functions', {
    details: { option: 'transform' },
  })
}
