/**
 * How the encoder reports where a bad value sits without paying for paths on success: the
 * innermost frame throws a Rejection, every container frame it unwinds through adds its own
 * step, and the top turns it into a NotSerializableError with a path like `$.items[3].cb`.
 */
import { NotSerializableError } from '../errors/payload_errors.ts'

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/

export class Rejection {
  readonly reason: string
  /** Path steps, innermost first (they are added while unwinding). */
  readonly steps: string[] = []
  constructor(reason: string) {
    this.reason = reason
  }
}

/** Adds one path step to a Rejection passing through; other errors pass unchanged. */
export function withStep(err: unknown, step: string): unknown {
  if (err instanceof Rejection) err.steps.push(step)
  return err
}

/** The path step of an object key: `.name` or `["odd key"]`. */
export function keyStep(key: string): string {
  return IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`
}

export function indexStep(index: number): string {
  return `[${index}]`
}

/** The path step of a symbol-keyed property, e.g. `[Symbol(id)]`. */
export function symbolStep(key: symbol): string {
  return `[${key.toString()}]`
}

/** The path step of the i-th key of a Map. */
export function mapKeyStep(index: number): string {
  return `.keys()[${index}]`
}

/** The path step of the i-th element of a Set. */
export function setStep(index: number): string {
  return `.values()[${index}]`
}

/** The path step of a Map value, named by its key when the key is a primitive. */
export function mapValueStep(key: unknown, index: number): string {
  switch (typeof key) {
    case 'string':
      return `.get(${JSON.stringify(key)})`
    case 'number':
    case 'boolean':
      return `.get(${String(key)})`
    case 'bigint':
      return `.get(${key}n)`
    default:
      return key === null || key === undefined ? `.get(${String(key)})` : `.values()[${index}]`
  }
}

/** The NotSerializableError a Rejection stands for; `what` names the payload. */
export function toNotSerializable(rejection: Rejection, what: string): NotSerializableError {
  const path = '$' + rejection.steps.toReversed().join('')
  return new NotSerializableError(path, `${rejection.reason} (in ${what})`)
}
