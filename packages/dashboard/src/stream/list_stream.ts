/**
 * `GET api/stream/runs?<filter>`: `event: ready` once the runs matching the filter now are
 * read (the baseline, not sent), then `event: run` (a RunSummary) whenever a run matching the
 * filter is created or changes status. Runs changed by this engine arrive through its events
 * (checked against the filter here); runs changed by other processes through a poll of the
 * filter's newest runs (matched by the store).
 */
import type { Engine, RunInfo } from '@cairn/core'
import { runSummary } from '../api/run_views.ts'
import type { RunFilter } from '../api/run_filter.ts'
import { keyMayMatch, runMatches, type RunKey } from './run_matcher.ts'
import { toListRunsQuery } from '../api/run_filter.ts'
import { RUN_EVENTS } from './engine_events.ts'
import { Refresher } from './refresher.ts'
import type { SharedReads } from './shared_reads.ts'
import type { SseChannel } from './sse_channel.ts'

const POLLED = 100
/** Runs whose status the stream remembers; the oldest are forgotten past this. */
const REMEMBERED = 10_000

export function streamRunList(
  engine: Engine,
  reads: SharedReads,
  filter: RunFilter,
  channel: SseChannel,
  pollMs: number,
  onError: (error: unknown) => void,
): () => void {
  const seen = new SeenStatuses()
  // Resolved at each check: a `stuckFor` cutoff moves with the engine's clock.
  const query = () => toListRunsQuery(filter, engine.options.clock.now())
  let baseline = true
  const poll = async () => {
    const page = await engine.listRuns({ ...query(), limit: POLLED })
    for (const run of page.runs) await consider(run, !baseline)
    if (!baseline) return
    baseline = false
    // What matches now is read: from here on, every change is announced.
    await channel.send('ready', {})
  }
  const consider = async (run: RunInfo, announce: boolean) => {
    if (seen.changed(run) && announce) await channel.send('run', runSummary(run))
  }
  // An event names the run's workflow and version: a run they rule out is not read.
  const onEvent = async (event: RunKey & { runId: string }) => {
    const current = query() // one cutoff for both checks
    if (!keyMayMatch(event, current)) return
    const run = await reads.getRun(event.runId)
    if (run !== null && runMatches(run, current)) await consider(run, true)
  }
  const refresher = new Refresher(poll, pollMs, onError)
  const unsubscribe = RUN_EVENTS.map((name) =>
    engine.on(name, (event) => void onEvent(event).catch(onError)),
  )
  refresher.request()
  return () => {
    refresher.stop()
    for (const off of unsubscribe) off()
  }
}

class SeenStatuses {
  private readonly statuses = new Map<string, string>()

  /** Records the run's status; true when it is new or differs from the last one seen. */
  changed(run: RunInfo): boolean {
    if (this.statuses.get(run.id) === run.status) return false
    this.statuses.delete(run.id)
    this.statuses.set(run.id, run.status)
    if (this.statuses.size > REMEMBERED)
      this.statuses.delete(this.statuses.keys().next().value as string)
    return true
  }
}
