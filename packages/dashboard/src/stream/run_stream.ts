/**
 * `GET api/stream/runs/:id`: the run (`event: run`, a RunSummary), its steps (`event: step`,
 * a StepView) and what its steps logged (`event: logs`, `{ logs: StepLogView[] }`) now, then
 * again whenever they change, and `event: end` once the run is terminal. Changes made here
 * arrive through engine events; changes made by other processes — and log lines, which raise
 * no event — through a poll. Completed and failed steps never change, so a refresh re-reads
 * steps only from the first position still open; log records are read only when they changed
 * (step_log_sender.ts), settled or not. `?seq=N` narrows steps and logs to position N (a
 * position's page).
 */
import { isTerminalStatus, type Engine, type RunInfo, type StepInfo } from '@cairn/core'
import { runSummary, stepView } from '../api/run_views.ts'
import { EVERY_EVENT } from './engine_events.ts'
import { Refresher } from './refresher.ts'
import type { SseChannel } from './sse_channel.ts'
import type { SharedReads } from './shared_reads.ts'
import { StepLogSender, type PositionRange } from './step_log_sender.ts'

const SETTLED_STEP = new Set(['completed', 'failed'])
const STEP_PAGE = 1000
export const EVERY_POSITION: PositionRange = { from: 0, to: Infinity }

export function streamRun(
  engine: Engine,
  reads: SharedReads,
  runId: string,
  channel: SseChannel,
  pollMs: number,
  onError: (error: unknown) => void,
  range: PositionRange = EVERY_POSITION,
): () => void {
  const state = new RunStreamState(range)
  const refresher = new Refresher(
    () => refresh(engine, reads, runId, channel, state, onError),
    pollMs,
    onError,
  )
  const unsubscribe = EVERY_EVENT.map((name) =>
    engine.on(name, (event) => {
      if (event.runId === runId) refresher.request()
    }),
  )
  refresher.request()
  return () => {
    refresher.stop()
    for (const off of unsubscribe) off()
  }
}

/** What the client has been sent: the run's last form, each step's and each log record's. */
class RunStreamState {
  run: string | null = null
  readonly steps = new Map<number, string>()
  readonly logs = new StepLogSender()
  readonly range: PositionRange
  /** Positions below this are settled (completed or failed): they never change again. */
  private settledBelow: number
  private readonly settled = new Set<number>()

  constructor(range: PositionRange) {
    this.range = range
    this.settledBelow = range.from
  }

  markStep(step: StepInfo, fingerprint: string): void {
    this.steps.set(step.seq, fingerprint)
    if (SETTLED_STEP.has(step.status)) this.settled.add(step.seq)
  }

  /** Where a refresh re-reads from: the first position not known to be settled. */
  firstUnsettled(): number {
    while (this.settled.has(this.settledBelow)) this.settled.delete(this.settledBelow++)
    return this.settledBelow
  }
}

async function refresh(
  engine: Engine,
  reads: SharedReads,
  runId: string,
  channel: SseChannel,
  state: RunStreamState,
  onError: (error: unknown) => void,
): Promise<void> {
  const run = await reads.getRun(runId)
  if (run === null || channel.ended) return channel.end()
  const fingerprint = `${run.status}|${run.updatedAt.getTime()}`
  if (fingerprint !== state.run) {
    await sendSteps(engine, run, channel, state)
    state.run = fingerprint
    await channel.send('run', runSummary(run))
  }
  // Logs are extra: a store that cannot read them must not stop the run and its steps (the
  // next refresh reads them again: the sender's mark did not move).
  await state.logs.send(engine, runId, state.range, channel).catch(onError)
  if (isTerminalStatus(run.status)) {
    await channel.send('end', { id: run.id, status: run.status })
    channel.end()
  }
}

async function sendSteps(
  engine: Engine,
  run: RunInfo,
  channel: SseChannel,
  state: RunStreamState,
): Promise<void> {
  const to = state.range.to
  for (let fromSeq: number | null = state.firstUnsettled(); fromSeq !== null && fromSeq < to;) {
    const limit = Math.min(STEP_PAGE, to - fromSeq)
    const page = await engine.getStepsPage(run.id, { fromSeq, limit })
    for (const step of page.steps) await sendIfChanged(step, channel, state)
    fromSeq = page.nextFromSeq
  }
}

async function sendIfChanged(step: StepInfo, channel: SseChannel, state: RunStreamState) {
  const fingerprint = `${step.status}|${step.updatedAt.getTime()}|${step.attempts}`
  if (state.steps.get(step.seq) === fingerprint) return
  state.markStep(step, fingerprint)
  await channel.send('step', stepView(step))
}
