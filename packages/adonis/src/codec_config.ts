/**
 * The `codec` field of config/durable.ts: how the engine turns payloads into the text its
 * store keeps (docs/codec.md). Either a ready `Codec`, or the default codec's options — its
 * limits and the `transform` hook that encrypts (or compresses) every payload at rest. Options
 * are built into a codec when the config loads, so a bad limit or transform fails there,
 * named, not at the first payload.
 */
import { isDeepStrictEqual } from 'node:util'
import { createCodec, InvalidArgumentError, type Codec } from '@cairn/core'
import { asConfigError, invalidConfig } from './errors.ts'

/** The default codec's options: `createCodec`'s (`maxBytes`, `maxDepth`, `transform`). */
export type DurableCodecOptions = NonNullable<Parameters<typeof createCodec>[0]>

const OPTION_KEYS = new Set(['maxBytes', 'maxDepth', 'transform'])

/** The codec the engine gets, or undefined for core's default. */
export function resolveCodecConfig(value: unknown): Codec | undefined {
  if (value === undefined) return undefined
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidConfig('codec', 'must be a codec ({ encode, decode }) or createCodec options')
  }
  if (isCodec(value)) return probed(value, 'codec')
  if ('encode' in value || 'decode' in value) {
    throw invalidConfig('codec', 'is a codec only with both encode and decode functions')
  }
  for (const key of Object.keys(value)) {
    if (!OPTION_KEYS.has(key)) {
      throw invalidConfig(
        `codec.${key}`,
        'is not a known option (codec takes maxBytes, maxDepth and transform, or is a codec with encode and decode)',
      )
    }
  }
  let codec: Codec
  try {
    codec = createCodec(value as DurableCodecOptions)
  } catch (error) {
    throw asConfigError(error, `codec.${optionOf(error)}`)
  }
  return 'transform' in value ? probed(codec, 'codec.transform') : codec
}

// Plain JSON: every codec, the app's own included, must carry it.
const PROBE = { cairn: 'config/durable.ts codec check', n: 1 }

/**
 * One payload through the codec and back: a transform that throws (a key of the wrong
 * length) or does not round-trip (encrypts with one key, decrypts with another) fails the
 * config's load, naming the field, instead of failing every run's first step.
 */
function probed(codec: Codec, field: string): Codec {
  let back: unknown
  try {
    back = codec.decode(codec.encode(PROBE, 'the config check payload'))
  } catch (error) {
    throw invalidConfig(field, `failed on a test payload: ${messageOf(error)}`, error)
  }
  if (!isDeepStrictEqual(back, PROBE)) {
    throw invalidConfig(field, 'does not round-trip: decode(encode(payload)) differs from payload')
  }
  return codec
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** A value with encode and decode methods is a codec; anything else is options for one. */
function isCodec(value: object): value is Codec {
  const { encode, decode } = value as { encode?: unknown; decode?: unknown }
  return typeof encode === 'function' && typeof decode === 'function'
}

/** The option core's codec named in its refusal (`details.option`). */
function optionOf(error: unknown): string {
  const option = InvalidArgumentError.is(error)
    ? (error.details as { option?: unknown } | undefined)?.option
    : undefined
  return typeof option === 'string' ? option : 'options'
}
