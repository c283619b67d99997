/**
 * Capability names: what a step `requires` and a worker offers (`capabilities`). One rule for
 * both, so every requirement can be met by a worker started from a command line
 * (`--capabilities=gpu,pdf`): a letter or digit, then letters, digits, `_ . : -`, at most 100.
 */
import { InvalidArgumentError } from '../errors/index.ts'

export const CAPABILITY_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$/
export const MAX_CAPABILITIES = 100

/** A list of distinct capability names, sorted; refused with E_INVALID_ARGUMENT naming `where`. */
export function checkCapabilities(value: unknown, where: string): string[] {
  if (!Array.isArray(value))
    throw new InvalidArgumentError(`${where} must be an array of capability names`)
  if (value.length > MAX_CAPABILITIES)
    throw new InvalidArgumentError(`${where} may list at most ${MAX_CAPABILITIES} capabilities`)
  const seen = new Set<string>()
  for (const item of value as unknown[]) {
    if (typeof item !== 'string' || !CAPABILITY_NAME.test(item))
      throw new InvalidArgumentError(
        `${where}: ${JSON.stringify(item)} is not a capability name (a letter or digit, then letters, digits, _ . : -, at most 100)`,
      )
    if (seen.has(item)) throw new InvalidArgumentError(`${where}: "${item}" is listed twice`)
    seen.add(item)
  }
  return [...seen].sort()
}
