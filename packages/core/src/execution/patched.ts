/**
 * `ctx.patched(id)`: lets a workflow change in place without breaking runs already under
 * way. A run that reaches this point for the first time records a marker and takes the new
 * path (true). A run whose history was recorded without the marker takes the old path
 * (false) and the marker takes no position, so its recorded steps still line up.
 */
import { checkStepName } from './local_step.ts'
import type { TurnRuntime } from './runtime.ts'

export function patched(rt: TurnRuntime, id: string): boolean {
  checkStepName(id, 'patched(id)')
  if (!rt.live) return true
  const record = rt.recordAt(rt.peekSeq())
  if (record !== undefined) {
    if (record.kind !== 'patch' || record.name !== id) return false
    rt.takeSeq()
    return true
  }
  const seq = rt.takeSeq()
  rt.saveMarker({ seq, name: id, kind: 'patch', attempts: 1, startedAt: rt.clock.now() })
  return true
}
