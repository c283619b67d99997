/**
 * Registered steps, by name: the units of work `ctx.step(name, input)` calls. A step name is
 * durable (it is recorded at the step's position), so one name is one handler.
 */
import { checkStepSchemas, schemaCheckedHandler } from '../schema/step_schemas.ts'
import { DuplicateStepError, InvalidArgumentError } from '../errors/index.ts'
import { BACKOFF_OPTIONS, STEP_DEFINITION_OPTIONS } from '../execution/option_specs.ts'
import { resolveRetryPolicy } from '../execution/retry_policy.ts'
import { checkStepQueueing } from '../execution/step_queue.ts'
import { checkStepTimeout } from '../execution/step_timeout.ts'
import type { StepHandler, StepOptions } from '../execution/types.ts'
import { checkOptionKeys } from '../util/known_keys.ts'
import { checkInteger, MAX_TIME_MS } from '../util/numbers.ts'
import { assertIdentifier } from '../util/validate.ts'
import { checkCapabilities } from '../wire/capabilities.ts'

export interface RegisteredStep {
  name: string
  handler: StepHandler<never, unknown>
  options: StepOptions
}

export class StepRegistry {
  private readonly byName = new Map<string, RegisteredStep>()
  /** Whether the engine has a transport of this name (a step placed on one must name one). */
  private readonly hasTransport: (name: string) => boolean

  constructor(hasTransport: (name: string) => boolean = () => false) {
    this.hasTransport = hasTransport
  }

  /** Checks everything now, so a bad option fails at boot rather than in a run. */
  add(name: string, handler: StepHandler<never, unknown>, options: StepOptions = {}): void {
    assertIdentifier(name, 'step name')
    if (typeof handler !== 'function')
      throw new InvalidArgumentError(`step "${name}": handler must be a function`)
    if (this.byName.has(name))
      throw new DuplicateStepError(`step "${name}" is already registered`, {
        details: { step: name },
      })
    // A misspelt option (`retry`, `timeout`) would otherwise be ignored without a word.
    checkOptionKeys(options, STEP_DEFINITION_OPTIONS, `step "${name}"`, { step: name })
    checkOptionKeys(options.backoff, BACKOFF_OPTIONS, `step "${name}" backoff`, { step: name })
    try {
      resolveRetryPolicy(options)
      checkStepTimeout(options.timeoutMs)
      checkPlacement(options.transport, this.hasTransport)
      checkRequires(options.requires, options.transport)
      checkPickupTimeout(options.pickupTimeoutMs, options.transport)
      checkStepQueueing(options)
    } catch (error) {
      throw new InvalidArgumentError(`step "${name}": ${(error as Error).message}`, {
        details: { step: name },
      })
    }
    checkStepSchemas(name, options)
    const checked = schemaCheckedHandler(name, handler, options)
    this.byName.set(name, { name, handler: checked, options })
  }

  find(name: string): RegisteredStep | undefined {
    return this.byName.get(name)
  }

  /** Every registered step's name. */
  names(): string[] {
    return [...this.byName.keys()]
  }
}

/** `requires` lists capability names, and only with a transport (a worker offers them). */
export function checkRequires(requires: unknown, transport: unknown): void {
  if (requires === undefined) return
  checkCapabilities(requires, 'requires')
  if (transport === undefined)
    throw new InvalidArgumentError(
      'requires needs a transport: capabilities are offered by workers (give transport too)',
    )
}

/** `pickupTimeoutMs` is a duration in the step-timeout range, and only with a transport. */
export function checkPickupTimeout(pickupTimeoutMs: unknown, transport: unknown): void {
  if (pickupTimeoutMs === undefined) return
  checkInteger(pickupTimeoutMs, 'pickupTimeoutMs', { min: 1, max: MAX_TIME_MS })
  if (transport === undefined)
    throw new InvalidArgumentError(
      'pickupTimeoutMs needs a transport: it bounds how long a worker takes to pick a task up (give transport too)',
    )
}

/** A `transport` names one of the engine's transports (EngineOptions.transports). */
export function checkPlacement(transport: unknown, hasTransport: (name: string) => boolean): void {
  if (transport === undefined) return
  if (typeof transport !== 'string' || !hasTransport(transport))
    throw new InvalidArgumentError(
      `transport ${JSON.stringify(transport)} is not one of this engine's transports (EngineOptions.transports)`,
    )
}
