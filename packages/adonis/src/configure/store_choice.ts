/**
 * `--store=sqlite|lucid`: which of config/durable.ts's stores the app starts on. A flag, not
 * a prompt, so that configure never waits on a terminal that is not there (CI, scripts).
 */
import { InvalidArgumentError } from '@cairn/core'

export const STORE_CHOICES = ['sqlite', 'lucid'] as const
export type StoreChoice = (typeof STORE_CHOICES)[number]

/** The store the flag asks for; undefined when the flag is not given. */
export function storeFromFlag(flag: unknown): StoreChoice | undefined {
  if (flag === undefined) return undefined
  if (typeof flag === 'string' && (STORE_CHOICES as readonly string[]).includes(flag)) {
    return flag as StoreChoice
  }
  throw new InvalidArgumentError(
    `--store must be one of ${STORE_CHOICES.join(', ')}, got ${JSON.stringify(flag)}`,
    { details: { flag: 'store', value: flag } },
  )
}
