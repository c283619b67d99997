/**
 * Waiting with a wall-clock deadline (a `Date.now()` time): the steps of a close that must not
 * hang on a backend that is down or unreachable (a transport's hand-backs, its connections).
 * Infrastructure time, not an engine clock: a fake test clock must not freeze it.
 */

import { MAX_TIMER_MS } from './numbers.ts'

/**
 * Resolves true when `work` settles (fulfilled or rejected), false at `deadline` if first;
 * Infinity (a drain told to wait for ever) waits for `work`.
 */
export async function untilDeadline(work: Promise<unknown>, deadline: number): Promise<boolean> {
  if (deadline === Number.POSITIVE_INFINITY) return work.then(settled, settled)
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    const ms = Math.min(MAX_TIMER_MS, Math.max(0, deadline - Date.now()))
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([work.then(settled, settled), late])
  } finally {
    clearTimeout(timer)
  }
}

function settled(): boolean {
  return true
}
