/**
 * Every options object of the public API takes only the keys it documents. A key it does not
 * know is refused with E_INVALID_ARGUMENT naming it, never ignored: a misspelt `timeout` or an
 * `@adonis-agora/durable` option such as `singleton` that Cairn lacks would otherwise change
 * nothing, without a word, and a user would believe it in force. Keys of the seed package get a
 * message saying so (foreign_options.ts).
 */
import { InvalidArgumentError } from '../errors/index.ts'
import { foreignOptionMessage, type ForeignOption } from './foreign_options.ts'

export interface OptionsSpec {
  /** Names the options object in messages and `details.call`: `engine.register`, `ctx.step`. */
  readonly call: string
  /** The keys it takes (listed with optionNames, so the list and its type cannot drift). */
  readonly known: ReadonlySet<string>
  /** Keys `@adonis-agora/durable` takes on the same call that Cairn does not (yet), or renames. */
  readonly foreign?: Readonly<Record<string, ForeignOption>>
}

/**
 * The keys of an options type, listed once as `{ key: true }`: tsc fails when the list misses
 * a key of `T` or names one `T` does not have.
 */
export function optionNames<T extends object>(names: {
  readonly [K in keyof Required<T>]: true
}): ReadonlySet<string> {
  return new Set(Object.keys(names))
}

/**
 * Throws E_INVALID_ARGUMENT unless `options` is undefined or a plain object whose own keys are
 * all in `spec.known`. `where` prefixes the message (`step "charge"`; default the call).
 * A known key set to undefined is fine (it means "not given"); an unknown one is refused even
 * then, as tsc refuses it. Inherited keys are not read here, and a class instance or array
 * is refused, since its options could hide in its prototype.
 */
export function checkOptionKeys(
  options: unknown,
  spec: OptionsSpec,
  where: string = spec.call,
  details: Record<string, unknown> = {},
): void {
  if (options === undefined) return
  if (!isPlainObject(options)) {
    throw new InvalidArgumentError(
      `${where}: options must be a plain object, got ${kindOf(options)}`,
      {
        details: { ...details, call: spec.call },
      },
    )
  }
  for (const key of Reflect.ownKeys(options)) {
    if (typeof key === 'string' && spec.known.has(key)) continue
    if (!Object.prototype.propertyIsEnumerable.call(options, key)) continue
    throw unknownOption(key, spec, where, details)
  }
}

function unknownOption(
  key: string | symbol,
  spec: OptionsSpec,
  where: string,
  details: Record<string, unknown>,
): InvalidArgumentError {
  const option = typeof key === 'string' ? key : key.toString()
  const shown = typeof key === 'string' ? JSON.stringify(key) : option
  const foreign = typeof key === 'string' ? foreignOption(spec, key) : undefined
  const facts = { ...details, call: spec.call, option }
  if (foreign !== undefined) {
    const message = `${where}: unknown option ${shown}: ${foreignOptionMessage(option, foreign)}`
    return new InvalidArgumentError(message, { details: { ...facts, ...foreignDetails(foreign) } })
  }
  const known = [...spec.known]
  const takes = known.length === 0 ? 'no options' : known.join(', ')
  return new InvalidArgumentError(
    `${where}: unknown option ${shown} (${spec.call} takes ${takes})`,
    {
      details: { ...facts, known },
    },
  )
}

// Object.hasOwn: a key like `constructor` or `__proto__` must not find the table's prototype.
function foreignOption(spec: OptionsSpec, key: string): ForeignOption | undefined {
  return spec.foreign !== undefined && Object.hasOwn(spec.foreign, key)
    ? spec.foreign[key]
    : undefined
}

/** `notYet: true` for a capability Cairn lacks; `use`, when Cairn has it under another key. */
function foreignDetails(foreign: ForeignOption): Record<string, unknown> {
  if ('notYet' in foreign) return { notYet: true }
  return foreign.use === undefined ? { notYet: false } : { notYet: false, use: foreign.use }
}

/** An object literal, `Object.create(null)` or JSON.parse output, from any realm. */
function isPlainObject(value: unknown): value is object {
  if (typeof value !== 'object' || value === null) return false
  const proto: unknown = Object.getPrototypeOf(value)
  return proto === null || Object.getPrototypeOf(proto) === null
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an instance of ${value.constructor?.name ?? 'a class'}`
  return typeof value
}
