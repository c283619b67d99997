/**
 * One page of a run's steps (positions `fromSeq` on, at most `limit`) and where the next page
 * starts, so `cairn run` never prints (or holds) a huge run's whole timeline at once.
 */
import type { Engine, StepInfo } from '@cairn/core'

export interface StepsPage {
  steps: StepInfo[]
  nextFromSeq: number | null
}

export async function stepsPage(
  engine: Engine,
  runId: string,
  page: { fromSeq: number; limit: number },
): Promise<StepsPage> {
  const all = await engine.getSteps(runId)
  const from = all.filter((s) => s.seq >= page.fromSeq)
  const steps = from.slice(0, page.limit)
  const next = from[page.limit]
  return { steps, nextFromSeq: next === undefined ? null : next.seq }
}
