/** One page of a run's steps, in position order, from position `fromSeq`. */
import type { Engine, StepInfo } from '@cairn/core'

export interface StepsPage {
  steps: StepInfo[]
  nextFromSeq: number | null
}

export async function loadStepsPage(
  engine: Engine,
  runId: string,
  page: { fromSeq: number; limit: number },
): Promise<StepsPage> {
  const all = await engine.getSteps(runId)
  const rest = all.filter((s) => s.seq >= page.fromSeq)
  const steps = rest.slice(0, page.limit)
  const next = rest[page.limit]
  return { steps, nextFromSeq: next === undefined ? null : next.seq }
}
