import { CairnError } from '@cairn/core'

/** The command line itself is wrong (unknown option, missing argument): exit code 2. */
export class UsageError extends CairnError {
  static readonly code = 'E_USAGE'
  constructor(message: string) {
    super(UsageError.code, message)
  }
}
