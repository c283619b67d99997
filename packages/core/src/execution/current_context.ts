/**
 * Which workflow body, if any, the current code runs in. The engine runs a body inside its
 * context and every step, side effect and transaction outside it, so code shared between a
 * body and a step (a framework's `Workflow.start`, a service) can tell a workflow that starts
 * another — which must be a child run, recorded at a position — from a step or a request
 * handler that starts an independent run.
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import type { WorkflowContext } from './types.ts'

const bodies = new AsyncLocalStorage<WorkflowContext>()

/** The context of the workflow body this code runs in; undefined in a step or outside any run. */
export function currentWorkflowContext(): WorkflowContext | undefined {
  return bodies.getStore()
}

/** Runs a workflow body (and everything it awaits) as code of that workflow. */
export function runAsBody<T>(ctx: WorkflowContext, body: () => T): T {
  return bodies.run(ctx, body)
}

/** Runs user code a step executes (and everything it awaits) as not workflow code. */
export function runOutsideBody<T>(fn: () => T): T {
  return bodies.exit(fn)
}
