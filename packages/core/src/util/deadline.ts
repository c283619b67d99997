/**
 * Waiting with a wall-clock deadline (a `Date.now()` time): shutdown work that must not hang
 * on a store that stays down. Infrastructure time, not the engine clock: a fake test clock
 * must not freeze it.
 */

/** Resolves true when `work` settles (fulfilled or rejected), false at `deadline` if first. */
export async function untilDeadline(work: Promise<unknown>, deadline: number): Promise<boolean> {
  if (deadline === Infinity) return work.then(settled, settled)
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()))
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
