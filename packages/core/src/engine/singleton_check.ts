/**
 * `register(…, { singleton })`: checked when the workflow is registered, so a misconfigured
 * admission fails at boot, never at the first start.
 */
import { InvalidArgumentError } from '../errors/index.ts'
import { SINGLETON_OPTIONS } from '../execution/option_specs.ts'
import type { SingletonOptions } from '../execution/types.ts'
import { MAX_ADMISSION_COUNT } from '../store/admission_check.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { checkInteger } from '../util/numbers.ts'

export function checkSingletonOptions(name: string, singleton: unknown): void {
  if (singleton === undefined) return
  const where = `workflow "${name}" singleton`
  const details = { workflow: name }
  if (typeof singleton !== 'object' || singleton === null || Array.isArray(singleton))
    throw new InvalidArgumentError(`${where}: an object { key, limit?, onFull?, maxQueueDepth? }`, {
      details,
    })
  checkOptionKeys(singleton, SINGLETON_OPTIONS, where, details)
  const s = singleton as SingletonOptions<unknown>
  if (typeof s.key !== 'function')
    throw new InvalidArgumentError(`${where}: key is a function (input) => string`, { details })
  if (s.limit !== undefined)
    checkInteger(s.limit, `${where}: limit`, { min: 1, max: MAX_ADMISSION_COUNT })
  if (s.onFull !== undefined && s.onFull !== 'reject' && s.onFull !== 'queue')
    throw new InvalidArgumentError(`${where}: onFull is "reject" or "queue"`, { details })
  if (s.maxQueueDepth !== undefined) {
    checkInteger(s.maxQueueDepth, `${where}: maxQueueDepth`, { min: 0, max: MAX_ADMISSION_COUNT })
    if (s.onFull === 'reject')
      throw new InvalidArgumentError(`${where}: maxQueueDepth bounds a queue; onFull is "reject"`, {
        details,
      })
  }
}
