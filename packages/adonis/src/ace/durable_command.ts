/**
 * What the durable:* commands share: the engine from the container, and how a refused request
 * is reported — the error's stable code and its message on stderr, exit code 1, no stack trace
 * (the operator's input was wrong, not the program).
 */
import { BaseCommand } from '@adonisjs/core/ace'
import { CairnError, type Engine } from '@cairn/core'
import '../types.ts'

export abstract class DurableCommand extends BaseCommand {
  /** The app's engine (the provider builds it when the app boots). */
  protected engine(): Promise<Engine> {
    return this.app.container.make('durable.engine')
  }

  /**
   * Reports a Cairn error (bad flag, unknown run, finished run…) as `E_CODE: message` and sets
   * exit code 1. Anything else is a bug or an outage: it propagates to Ace's error output.
   */
  protected refuse(error: unknown): void {
    if (!CairnError.isCairnError(error)) throw error
    this.logger.error(`${error.code}: ${error.message}`)
    this.exitCode = 1
  }
}
