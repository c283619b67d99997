/**
 * Taking an Error apart into the fields Cairn records, and building an Error back from them.
 * Shared by the payload codec (an Error inside a step result) and by serializeError (the
 * error a run or step failed with).
 */

/** Stacks longer than this are cut: they are diagnostics, not data. */
export const MAX_STACK_CHARS = 16 * 1024
const STACK_CUT_MARK = '\n    ... (stack truncated)'

/** Built-in classes an Error is restored as, chosen by its `name`; anything else is Error. */
const BUILTIN_ERRORS: ReadonlyMap<string, ErrorConstructor> = new Map(
  [Error, TypeError, RangeError, SyntaxError, ReferenceError, EvalError, URIError].map((c) => [
    c.name,
    c,
  ]),
)

/** The fields kept of an Error. */
export interface ErrorParts {
  name: string
  message: string
  stack: string | undefined
  /** A string `code` (Node system errors, CairnError); other codes stay in `props`. */
  code: string | undefined
  /** The own `cause`, if any, and whether it was assigned (enumerable) or given to the constructor. */
  cause: { value: unknown; enumerable: boolean } | undefined
  /** AggregateError's own non-enumerable `errors`. */
  errors: unknown[] | undefined
  /** Other own enumerable string-keyed properties (`details`, `retryAfterMs`, `errno`, …). */
  props: Array<[string, unknown]>
}

/** How a property is read: directly, or guarded against throwing getters. */
export type PropertyReader = (target: object, key: string) => unknown

const readDirectly: PropertyReader = (target, key) => (target as Record<string, unknown>)[key]

/** True for Error objects, including ones from other realms where the runtime can tell. */
export function isError(value: unknown): value is Error {
  return value instanceof Error || (hasIsError(Error) && Error.isError(value))
}

function hasIsError(ctor: object): ctor is { isError(value: unknown): boolean } {
  return typeof (ctor as { isError?: unknown }).isError === 'function'
}

export function readErrorParts(err: Error, read: PropertyReader = readDirectly): ErrorParts {
  const code = read(err, 'code')
  return {
    name: String(read(err, 'name')),
    message: String(read(err, 'message')),
    stack: capStack(read(err, 'stack')),
    code: typeof code === 'string' ? code : undefined,
    cause: readCause(err, read),
    errors: readAggregated(err, read),
    props: readProps(err, typeof code === 'string', read),
  }
}

function readCause(err: Error, read: PropertyReader): ErrorParts['cause'] {
  if (!Object.hasOwn(err, 'cause')) return undefined
  return {
    value: read(err, 'cause'),
    enumerable: Object.prototype.propertyIsEnumerable.call(err, 'cause'),
  }
}

function readAggregated(err: Error, read: PropertyReader): unknown[] | undefined {
  if (!Object.hasOwn(err, 'errors') || Object.prototype.propertyIsEnumerable.call(err, 'errors')) {
    return undefined
  }
  const errors = read(err, 'errors')
  return Array.isArray(errors) ? errors : undefined
}

const FIELD_KEYS = new Set(['name', 'message', 'stack', 'cause'])

function readProps(err: Error, codeIsField: boolean, read: PropertyReader): ErrorParts['props'] {
  const props: ErrorParts['props'] = []
  for (const key of Object.keys(err)) {
    if (FIELD_KEYS.has(key) || (codeIsField && key === 'code')) continue
    props.push([key, read(err, key)])
  }
  return props
}

/** A string stack cut to MAX_STACK_CHARS (never splitting a surrogate pair); else undefined. */
export function capStack(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined
  if (stack.length <= MAX_STACK_CHARS) return stack
  let end = MAX_STACK_CHARS - STACK_CUT_MARK.length
  if (isHighSurrogate(stack.charCodeAt(end - 1))) end -= 1
  return stack.slice(0, end) + STACK_CUT_MARK
}

function isHighSurrogate(unit: number): boolean {
  return unit >= 0xd800 && unit <= 0xdbff
}

/** What an Error is rebuilt from. */
export interface ErrorFields {
  name: string
  message: string
  stack?: string | undefined
  code?: string | undefined
  cause?: { value: unknown } | undefined
  errors?: unknown[] | undefined
  props?: Iterable<[string, unknown]> | undefined
}

/**
 * An Error of the built-in class its name names (else Error) carrying `fields`: name and code
 * as own enumerable properties where they differ from the class default (as subclasses set
 * them), cause and errors as the constructor leaves them, other props as own enumerable.
 */
export function buildError(fields: ErrorFields): Error {
  const err = constructError(fields)
  if (err.name !== fields.name) err.name = fields.name
  // Without a recorded stack, point at nothing rather than at the decoding code.
  defineHidden(err, 'stack', fields.stack ?? `${fields.name}: ${fields.message}`)
  if (fields.code !== undefined) defineVisible(err, 'code', fields.code)
  if (fields.errors !== undefined && !Object.hasOwn(err, 'errors')) {
    defineHidden(err, 'errors', fields.errors)
  }
  for (const [key, value] of fields.props ?? []) defineVisible(err, key, value)
  return err
}

function constructError(fields: ErrorFields): Error {
  const options = fields.cause === undefined ? undefined : { cause: fields.cause.value }
  if (fields.name === 'AggregateError') {
    return new AggregateError(fields.errors ?? [], fields.message, options)
  }
  const ErrorClass = BUILTIN_ERRORS.get(fields.name) ?? Error
  return new ErrorClass(fields.message, options)
}

function defineHidden(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: false,
    configurable: true,
  })
}

/** Defines rather than assigns, so keys like `__proto__` stay plain own properties. */
export function defineVisible(target: object, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    writable: true,
    enumerable: true,
    configurable: true,
  })
}
