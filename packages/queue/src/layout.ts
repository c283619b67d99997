/**
 * Where things live among the adapter's queues. Tasks go to one queue per (step, requirement
 * set), named by a hash (queue names are a column of bounded length in the database driver), so
 * a worker pops only what it may serve; the `routes` record maps those names back. Reports
 * (results and heartbeats) share one queue that every engine pops. The fleet and the routes are
 * registry records: one job each in a queue nobody pops (registry.ts).
 *
 *   <prefix>.t.<hash>     task queue: job id = task id, payload = the task message (JSON text)
 *   <prefix>.reports      report queue: payload = a result or heartbeat message (JSON text)
 *   <prefix>.registry     jobs `routes` (queue name → route) and `workers` (id → announcement)
 */
import { createHash } from 'node:crypto'

export const TASK_JOB = 'cairn.task'
export const REPORT_JOB = 'cairn.report'

/**
 * The payload a withdrawn task's job is given (EngineTransport.withdraw): the adapter cannot
 * delete a pending job, but it can swap the payload of one no worker holds, atomically against
 * a pop. A worker that pops it drops it. Not JSON, so never mistaken for a message.
 */
export const WITHDRAWN = 'cairn:withdrawn'

export interface Route {
  step: string
  requires: string[]
}

export interface QueueNames {
  reports: string
  registry: string
  task(step: string, requires: readonly string[]): string
}

export function queueNames(prefix: string): QueueNames {
  return {
    reports: `${prefix}.reports`,
    registry: `${prefix}.registry`,
    task: (step, requires) => {
      const route = JSON.stringify(routeOf(step, requires))
      const hash = createHash('sha256').update(route, 'utf8').digest('base64url').slice(0, 32)
      return `${prefix}.t.${hash}`
    },
  }
}

export function routeOf(step: string, requires: readonly string[]): Route {
  return { step, requires: [...new Set(requires)].sort() }
}

/** Which task queues a worker with these steps and capabilities may take from. */
export function servedQueues(
  routes: Readonly<Record<string, string>>,
  steps: readonly string[],
  capabilities: readonly string[],
): string[] {
  const served: string[] = []
  for (const [queue, text] of Object.entries(routes)) {
    const route = parseRoute(text)
    if (route === null || !steps.includes(route.step)) continue
    if (!route.requires.every((need) => capabilities.includes(need))) continue
    served.push(queue)
  }
  return served.sort()
}

/** A routes-record entry, or null for one that is not a route (left alone). */
export function parseRoute(text: string): Route | null {
  try {
    const route = JSON.parse(text) as Partial<Route>
    if (typeof route.step !== 'string' || !Array.isArray(route.requires)) return null
    if (!route.requires.every((need) => typeof need === 'string')) return null
    return { step: route.step, requires: route.requires }
  } catch {
    return null
  }
}
