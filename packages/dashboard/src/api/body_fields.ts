/** Reading typed fields of a JSON request body, with a 400 naming the field when one is wrong. */
import { badRequest } from '../http/http_error.ts'

export function optionalString(
  body: Record<string, unknown>,
  name: string,
  maxLength = 1024,
): string | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'string' || value.length === 0 || value.length > maxLength)
    throw badRequest(`${name} must be a string of 1..${maxLength} characters`)
  return value
}

export function requiredString(body: Record<string, unknown>, name: string): string {
  const value = optionalString(body, name)
  if (value === undefined) throw badRequest(`${name} is required`)
  return value
}

export function optionalBoolean(body: Record<string, unknown>, name: string): boolean | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (typeof value !== 'boolean') throw badRequest(`${name} must be true or false`)
  return value
}

export function optionalInteger(body: Record<string, unknown>, name: string): number | undefined {
  const value = body[name]
  if (value === undefined || value === null) return undefined
  if (!Number.isSafeInteger(value)) throw badRequest(`${name} must be an integer`)
  return value as number
}

/** Only these keys: a misspelt option is an error, not silently ignored. */
export function onlyKeys(body: Record<string, unknown>, allowed: readonly string[]): void {
  const extra = Object.keys(body).find((key) => !allowed.includes(key))
  if (extra !== undefined)
    throw badRequest(
      `unknown field "${extra.slice(0, 40)}" (known: ${allowed.join(', ') || 'none'})`,
    )
}
