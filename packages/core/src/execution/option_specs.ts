/**
 * The keys each options object of the workflow author's API takes (workflow registration,
 * steps, waits, children), for checkOptionKeys. Listed with optionNames, so a key added to a
 * type in types.ts must be added here too or tsc fails.
 */
import {
  FOREIGN_CHILD_OPTIONS,
  FOREIGN_LOCAL_STEP_OPTIONS,
  FOREIGN_STEP_CALL_OPTIONS,
  FOREIGN_STEP_DEFINITION_OPTIONS,
  FOREIGN_WORKFLOW_OPTIONS,
} from '../util/foreign_options.ts'
import { optionNames, type OptionsSpec } from '../util/known_keys.ts'
import type {
  AllOptions,
  BackoffOptions,
  ChildOptions,
  EventWaitOptions,
  LocalStepOptions,
  RetryOptions,
  SignalWaitOptions,
  SingletonOptions,
  StepOptions,
  StepCallOptions,
  UpdateOptions,
  WorkflowOptions,
} from './types.ts'

export const WORKFLOW_OPTIONS: OptionsSpec = {
  call: 'engine.register',
  known: optionNames<WorkflowOptions>({
    retry: true,
    deadLetterWorkflow: true,
    schedule: true,
    executionTimeoutMs: true,
    searchAttributes: true,
    singleton: true,
    priority: true,
    queue: true,
    onEvent: true,
    eventBatch: true,
    inputSchema: true,
  }),
  foreign: FOREIGN_WORKFLOW_OPTIONS,
}

/** A workflow's singleton admission (`register(…, { singleton })`). */
export const SINGLETON_OPTIONS: OptionsSpec = {
  call: 'engine.register singleton',
  known: optionNames<SingletonOptions>({
    key: true,
    limit: true,
    onFull: true,
    maxQueueDepth: true,
  }),
}

/** A workflow's default retry policy (`register(…, { retry })`). */
export const WORKFLOW_RETRY_OPTIONS: OptionsSpec = {
  call: 'engine.register retry',
  known: optionNames<RetryOptions>({ retries: true, backoff: true }),
}

export const BACKOFF_OPTIONS: OptionsSpec = {
  call: 'backoff',
  known: optionNames<BackoffOptions>({
    type: true,
    delay: true,
    factor: true,
    maxDelay: true,
    jitter: true,
  }),
}

const LOCAL_STEP_NAMES = optionNames<LocalStepOptions>({
  retries: true,
  backoff: true,
  timeoutMs: true,
  compensate: true,
})

export const LOCAL_STEP_OPTIONS: OptionsSpec = {
  call: 'ctx.localStep',
  known: LOCAL_STEP_NAMES,
  foreign: FOREIGN_LOCAL_STEP_OPTIONS,
}

/** `ctx.step(ref, input, options)`: a local step's options, over the registered ones. */
export const STEP_CALL_OPTIONS: OptionsSpec = {
  call: 'ctx.step',
  known: optionNames<StepCallOptions>({
    retries: true,
    backoff: true,
    timeoutMs: true,
    compensate: true,
    transport: true,
    requires: true,
    pickupTimeoutMs: true,
    queue: true,
    priority: true,
    fairnessKey: true,
  }),
  foreign: FOREIGN_STEP_CALL_OPTIONS,
}

/** `defineStep`, `engine.registerStep` and a BaseStep's `static step`. */
export const STEP_DEFINITION_OPTIONS: OptionsSpec = {
  call: 'step definition',
  known: optionNames<StepOptions>({
    retries: true,
    backoff: true,
    timeoutMs: true,
    transport: true,
    requires: true,
    pickupTimeoutMs: true,
    queue: true,
    priority: true,
    fairnessKey: true,
    input: true,
    output: true,
  }),
  foreign: FOREIGN_STEP_DEFINITION_OPTIONS,
}

export const TRANSACTION_OPTIONS: OptionsSpec = {
  call: 'ctx.transaction',
  known: optionNames<RetryOptions>({ retries: true, backoff: true }),
}

export const CHILD_OPTIONS: OptionsSpec = {
  call: 'ctx.child',
  known: optionNames<ChildOptions>({ childId: true, version: true, priority: true }),
  foreign: FOREIGN_CHILD_OPTIONS,
}

export const ALL_OPTIONS: OptionsSpec = {
  call: 'ctx.all',
  known: optionNames<AllOptions>({ version: true, mode: true, priority: true }),
  foreign: FOREIGN_CHILD_OPTIONS,
}

export const ALL_SETTLED_OPTIONS: OptionsSpec = {
  call: 'ctx.allSettled',
  known: optionNames<Omit<AllOptions, 'mode'>>({ version: true, priority: true }),
  foreign: FOREIGN_CHILD_OPTIONS,
}

export const UPDATE_WAIT_OPTIONS: OptionsSpec = {
  call: 'ctx.onUpdate',
  known: optionNames<UpdateOptions<unknown>>({ validate: true, timeoutMs: true }),
}

export const EVENT_WAIT_OPTIONS: OptionsSpec = {
  call: 'ctx.waitForEvent',
  known: optionNames<EventWaitOptions>({ match: true, timeoutMs: true }),
}

export const SIGNAL_WAIT_OPTIONS: OptionsSpec = {
  call: 'ctx.waitForSignal',
  known: optionNames<SignalWaitOptions>({ timeoutMs: true }),
}

export const WEBHOOK_WAIT_OPTIONS: OptionsSpec = {
  call: 'webhook.wait',
  known: SIGNAL_WAIT_OPTIONS.known,
}
