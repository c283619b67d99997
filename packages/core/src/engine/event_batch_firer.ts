/**
 * Starts the runs event accumulators come to (an `onEvent` trigger's `batch`), on every driving
 * engine: it claims due accumulators from the store (StateStore.claimEventBatches: each goes to
 * one engine per lease), starts each one's run through `engine.start` under the id derived from
 * the accumulator (event_batch_spec.ts `batchRunId`), then deletes the accumulator.
 *
 * Exactly once: a crash between the start and the delete leaves the accumulator claimed; its
 * lease lapses, another claim takes it over, and the start finds the run `existing`. A start
 * that fails for a reason a retry can mend (the store unreachable, the engine closing) leaves it
 * the same way.
 *
 * When: at the due time of an accumulator this engine's publishes touched, at the `nextAt` its
 * claims report, and at least every sweep interval (an accumulator another engine added, whose
 * timer went with it) — so a debounce's run starts within that interval of its due time even
 * when the publishing engine died.
 */
import type { TimerHandle } from '../contracts/clock.ts'
import type { ClaimedEventBatch } from '../contracts/event_batches.ts'
import { CairnError, ErrorCodes } from '../errors/index.ts'
import { batchRunId } from './event_batch_spec.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { StartedRun } from './run_starter.ts'

/** Accumulators one claim takes. */
const CLAIM_LIMIT = 20
/** After a claim that failed (the store unreachable), ask again this much later. */
const RETRY_MS = 1_000

export interface EventBatchFirerDeps {
  options: ResolvedEngineOptions
  /** The workflows this engine registers (any version): it claims only their accumulators. */
  workflows(): readonly string[]
  /** engine.start of `workflow` with `input` under `runId`. */
  start(workflow: string, input: unknown, runId: string): Promise<StartedRun>
}

export class EventBatchFirer {
  readonly #deps: EventBatchFirerDeps
  #active = false
  #timer: TimerHandle | null = null
  #timerAt: number | null = null
  #firing = false
  #again = false
  /** A claim or its starts are in flight (harnesses wait for it before moving a fake clock). */
  busy = false

  constructor(deps: EventBatchFirerDeps) {
    this.#deps = deps
  }

  /** The engine drives runs: fire what is due, and keep watching. */
  start(): void {
    this.#active = true
    void this.#fire()
  }

  stop(): void {
    this.#active = false
    this.#timer?.cancel()
    this.#timer = null
    this.#timerAt = null
  }

  /** An accumulator this engine added to is due at `at`: fire then (if driving). */
  dueAt(at: number): void {
    if (this.#active) this.#schedule(at)
  }

  /** A workflow was registered while driving: its due accumulators are this engine's to fire. */
  workflowsChanged(): void {
    if (this.#active) void this.#fire()
  }

  get #sweepMs(): number {
    return Math.max(1_000, Math.floor(this.#deps.options.parkUnrunnableAfterMs / 2))
  }

  #schedule(at: number): void {
    const { clock } = this.#deps.options
    // Due already (a full batch): now, not at the next timer tick.
    if (at <= clock.now()) return void this.#fire()
    if (this.#timerAt !== null && this.#timerAt <= at) return
    this.#timer?.cancel()
    this.#timerAt = at
    this.#timer = clock.setTimer(Math.max(0, at - clock.now()), () => {
      this.#timer = null
      this.#timerAt = null
      void this.#fire()
    })
  }

  async #fire(): Promise<void> {
    if (!this.#active) return
    if (this.#firing) {
      this.#again = true
      return
    }
    this.#firing = true
    this.busy = true
    const { clock, logger } = this.#deps.options
    try {
      for (;;) {
        this.#again = false
        const next = await this.#claimAndStart()
        if (next === 'more' || this.#again) continue
        const sweep = clock.now() + this.#sweepMs
        this.#schedule(next === null ? sweep : Math.min(next, sweep))
        return
      }
    } catch (error) {
      logger.error(
        { err: error },
        'cairn: claiming due event batches failed; retrying (their runs start late, none is lost)',
      )
      this.#schedule(clock.now() + RETRY_MS)
    } finally {
      this.#firing = false
      this.busy = false
    }
  }

  /** One claim and its starts: 'more' when the claim was full, else when to ask next. */
  async #claimAndStart(): Promise<number | null | 'more'> {
    const { store, clock, instanceId, leaseMs } = this.#deps.options
    const workflows = this.#deps.workflows()
    if (workflows.length === 0) return null
    const { claimed, nextAt } = await store.claimEventBatches({
      now: clock.now(),
      limit: CLAIM_LIMIT,
      owner: instanceId,
      leaseMs,
      workflows,
    })
    await Promise.all(claimed.map((batch) => this.#startRun(batch)))
    return claimed.length === CLAIM_LIMIT ? 'more' : nextAt
  }

  async #startRun(batch: ClaimedEventBatch): Promise<void> {
    const { logger, store } = this.#deps.options
    const where = { workflow: batch.workflow, key: batch.key, batchId: batch.id }
    const runId = batchRunId(batch.workflow, batch.id)
    const outcome = await this.#startOnce(batch, runId)
    if (outcome === 'retry') return
    try {
      await store.deleteEventBatch(batch.workflow, batch.key, batch.id)
    } catch (error) {
      // Left claimed: the lease lapses, the start finds the run, the delete is tried again.
      logger.warn({ ...where, err: error }, 'cairn: could not delete a fired event batch')
    }
  }

  /** Start the batch's run: 'done' (started, or there already), 'retry' (mendable failure). */
  async #startOnce(batch: ClaimedEventBatch, runId: string): Promise<'done' | 'retry'> {
    const { logger, codec } = this.#deps.options
    const where = { workflow: batch.workflow, key: batch.key, batchId: batch.id, runId }
    try {
      const decoded = batch.payloads.map((payload) => codec.decode(payload))
      const input = batch.mode === 'debounce' ? decoded[0] : decoded
      await this.#deps.start(batch.workflow, input, runId)
      return 'done'
    } catch (error) {
      const cairn = CairnError.isCairnError(error) ? error : null
      const code = cairn?.code ?? null
      // Its run exists already (a start whose answer was lost): started, as far as it goes.
      if (code === ErrorCodes.RUN_ID_CONFLICT && cairn?.details?.workflow === batch.workflow)
        return 'done'
      if (code === ErrorCodes.STORE_FAILURE || code === ErrorCodes.ENGINE_STOPPED) {
        logger.warn({ ...where, err: error }, 'cairn: an event batch run did not start; retrying')
        return 'retry'
      }
      // Refused for good (a full singleton key that rejects, an id taken by another run, a
      // payload this codec cannot read): retrying would meet it again. Its events are named.
      logger.error(
        { ...where, eventIds: batch.eventIds, err: error },
        'cairn: an event batch could not start its run; the batch is dropped',
      )
      return 'done'
    }
  }
}
