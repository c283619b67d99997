/**
 * engine.getStepsPage: a run's timeline one page at a time (dashboards of long runs), from
 * store.loadCheckpointPage. The next page starts after the last position returned. A full
 * page says "there may be more" without a second read to be sure, so when the run has
 * exactly `limit` positions left, `nextFromSeq` is not null and the page it names is empty.
 */
import type { Codec } from '../contracts/codec.ts'
import type { CheckpointPage, StateStore } from '../contracts/state_store.ts'
import { timelineRecords, toStepInfo, type StepInfo } from './views.ts'

export interface StepPage {
  /** Steps at positions >= fromSeq, in position order, at most `limit`. */
  steps: StepInfo[]
  /**
   * Where the next page starts (last position + 1) when this page was full, else null. Not
   * null does not promise more steps: the next page may be empty.
   */
  nextFromSeq: number | null
}

export async function readStepPage(
  store: StateStore,
  codec: Codec,
  runId: string,
  page: CheckpointPage,
): Promise<StepPage> {
  const records = await store.loadCheckpointPage(runId, page)
  const last = records[records.length - 1]
  return {
    steps: timelineRecords(records).map((record) => toStepInfo(record, codec)),
    nextFromSeq: records.length === page.limit && last !== undefined ? last.seq + 1 : null,
  }
}
