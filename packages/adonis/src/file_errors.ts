/**
 * Registration at boot: the engine's message names the workflow or step and the option; the
 * file it came from is where to fix it, so an invalid-argument error gains `(in <file>)`.
 */
import { InvalidArgumentError } from '@cairn/core'

export function naming<T>(file: string, register: () => T): T {
  try {
    return register()
  } catch (error) {
    if (!InvalidArgumentError.is(error)) throw error
    throw new InvalidArgumentError(`${error.message} (in ${file})`, {
      details: { ...error.details, file },
    })
  }
}
