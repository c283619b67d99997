/**
 * Which workflow body or step, if any, the current code runs in. The engine runs a body
 * inside its context and every step outside it, so code shared between a body and a step (a
 * framework's `Workflow.start`, a service) can tell a workflow that starts another — which
 * must be a child run, recorded at a position — from a step or a request handler that starts
 * an independent run. A step's code (and everything it awaits) can reach its StepContext with
 * `currentStep()`: its logger and progress, without being handed them (docs/step-logs.md).
 *
 * One AsyncLocalStorage for both: entering a step replaces the body's context rather than
 * adding a second store switch per attempt. Imports nothing but types, so `@cairn/worker`
 * shares it (through `@cairn/core/wire`) without loading the engine.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { StepContext, WorkflowContext } from '../execution/types.ts'

type Scope = { body: WorkflowContext; step?: undefined } | { step: StepContext; body?: undefined }

const scopes = new AsyncLocalStorage<Scope>()

/** The context of the workflow body this code runs in; undefined in a step or outside any run. */
export function currentWorkflowContext(): WorkflowContext | undefined {
  return scopes.getStore()?.body
}

/**
 * The StepContext of the step attempt this code runs in (in process or on a worker), or
 * undefined outside any step — in a workflow body, a side effect, a request handler.
 */
export function currentStep(): StepContext | undefined {
  return scopes.getStore()?.step
}

/** Runs a workflow body (and everything it awaits) as code of that workflow. */
export function runAsBody<T>(ctx: WorkflowContext, body: () => T): T {
  return scopes.run({ body: ctx }, body)
}

/** Runs a step attempt's code (and everything it awaits) as that step: not workflow code. */
export function runAsStep<T>(step: StepContext, fn: () => T): T {
  return scopes.run({ step }, fn)
}

/** Runs user code that is neither body nor step (a side effect) as not workflow code. */
export function runOutsideBody<T>(fn: () => T): T {
  return scopes.exit(fn)
}
