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
import { MAX_CLAIM_WORKFLOWS } from '../store/event_batch_rules.ts'
import { batchRunId } from './event_batch_spec.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { StartedRun } from './run_starter.ts'

/** Accumulators one claim takes. */
const CLAIM_LIMIT = 20
/** After a claim that failed (the store unreachable), ask again this much later. */
const RETRY_MS = 1_000
/**
 * Start failures a later try can mend: the store unreachable, the engine closing, a workflow
 * version or queue this engine lacks (another engine, or this one after a deploy, may have it).
 */
const MENDABLE: ReadonlySet<string> = new Set([
  ErrorCodes.STORE_FAILURE,
  ErrorCodes.ENGINE_STOPPED,
  ErrorCodes.WORKFLOW_NOT_REGISTERED,
  ErrorCodes.QUEUE_NOT_REGISTERED,
])

/** The soonest a claim follows the last one when nothing more was claimable then. */
const RECHECK_MS = 50

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
    if (!this.#active) return
    // Due already (a full batch): now, not at the next timer tick.
    if (at <= this.#deps.options.clock.now()) void this.#fire()
    else this.#schedule(at)
  }

  /** A workflow was registered while driving: its due accumulators are this engine's to fire. */
  workflowsChanged(): void {
    if (this.#active) void this.#fire()
  }

  get #sweepMs(): number {
    return Math.max(1_000, Math.floor(this.#deps.options.parkUnrunnableAfterMs / 2))
  }

  /** A timer at `at` (an earlier one set stands); never fires in place, never after stop. */
  #schedule(at: number): void {
    if (!this.#active) return
    if (this.#timerAt !== null && this.#timerAt <= at) return
    this.#timer?.cancel()
    const { clock } = this.#deps.options
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
        if (!this.#active) return
        if (next === 'more' || this.#again) continue
        this.#schedule(this.#nextLook(next))
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

  /**
   * When to claim again: at `nextAt`, no later than the sweep, and no sooner than RECHECK_MS
   * from now — a `nextAt` already past is an accumulator another claim or an append holds
   * locked (or just took), which a claim at once would pass over again and again.
   */
  #nextLook(nextAt: number | null): number {
    const now = this.#deps.options.clock.now()
    const sweep = now + this.#sweepMs
    if (nextAt === null) return sweep
    return Math.max(Math.min(nextAt, sweep), now + RECHECK_MS)
  }

  /** One claim per slice of the workflows and its starts: 'more' when one was full. */
  async #claimAndStart(): Promise<number | null | 'more'> {
    const { store, clock, instanceId, leaseMs } = this.#deps.options
    const all = this.#deps.workflows()
    let next: number | null = null
    let more = false
    for (let i = 0; i < all.length && this.#active; i += MAX_CLAIM_WORKFLOWS) {
      const { claimed, nextAt } = await store.claimEventBatches({
        now: clock.now(),
        limit: CLAIM_LIMIT,
        owner: instanceId,
        leaseMs,
        workflows: all.slice(i, i + MAX_CLAIM_WORKFLOWS),
      })
      await Promise.all(claimed.map((batch) => this.#startRun(batch)))
      more ||= claimed.length === CLAIM_LIMIT
      if (nextAt !== null && (next === null || nextAt < next)) next = nextAt
    }
    return more ? 'more' : next
  }

  async #startRun(batch: ClaimedEventBatch): Promise<void> {
    // Started even when a drain began meanwhile: the drain waits for it (claimed, it is ours).
    const { logger, store, codec } = this.#deps.options
    const where = { workflow: batch.workflow, key: batch.key, batchId: batch.id }
    let decoded: unknown[]
    try {
      decoded = batch.payloads.map((payload) => codec.decode(payload))
    } catch (error) {
      decoded = []
      this.#dropped(batch, batch.id, error)
    }
    const outcome = decoded.length === 0 ? 'done' : await this.#startPart(batch, decoded, batch.id)
    if (outcome === 'retry') return
    try {
      await store.deleteEventBatch(batch.workflow, batch.key, batch.id)
    } catch (error) {
      // Left claimed: the lease lapses, the starts find their runs, the delete is tried again.
      logger.warn({ ...where, err: error }, 'cairn: could not delete a fired event batch')
    }
  }

  /**
   * Start the run of `payloads` under the id derived from `id`: 'done' (started, there already,
   * or refused for good), 'retry' (a failure a later try can mend). A batch whose payloads make
   * too large an input for one run (E_PAYLOAD_TOO_LARGE) is split in halves — ids `<id>.0` and
   * `<id>.1`, recursively — the same way on every try, so a takeover starts nothing twice.
   */
  async #startPart(
    batch: ClaimedEventBatch,
    payloads: unknown[],
    id: string,
  ): Promise<'done' | 'retry'> {
    const { logger } = this.#deps.options
    const runId = batchRunId(batch.workflow, id)
    try {
      const input = batch.mode === 'debounce' ? payloads[0] : payloads
      await this.#deps.start(batch.workflow, input, runId)
      return 'done'
    } catch (error) {
      const cairn = CairnError.isCairnError(error) ? error : null
      const code = cairn?.code ?? ''
      // Its run exists already (a start whose answer was lost): started, as far as it goes.
      if (code === ErrorCodes.RUN_ID_CONFLICT && cairn?.details?.workflow === batch.workflow)
        return 'done'
      if (code === ErrorCodes.PAYLOAD_TOO_LARGE && batch.mode === 'batch' && payloads.length > 1) {
        const half = Math.ceil(payloads.length / 2)
        const first = await this.#startPart(batch, payloads.slice(0, half), `${id}.0`)
        const second = await this.#startPart(batch, payloads.slice(half), `${id}.1`)
        return first === 'retry' || second === 'retry' ? 'retry' : 'done'
      }
      if (MENDABLE.has(code)) {
        const where = { workflow: batch.workflow, batchId: batch.id, runId, err: error }
        logger.warn(where, 'cairn: an event batch run did not start; retrying')
        return 'retry'
      }
      this.#dropped(batch, id, error)
      return 'done'
    }
  }

  /**
   * Refused for good (a full singleton key that rejects, an id taken by another run, a payload
   * this codec cannot read, one payload alone too large): retrying would meet it again.
   */
  #dropped(batch: ClaimedEventBatch, id: string, error: unknown): void {
    const where = { workflow: batch.workflow, key: batch.key, batchId: id }
    this.#deps.options.logger.error(
      { ...where, eventIds: batch.eventIds, err: error },
      'cairn: an event batch could not start its run; its events are dropped',
    )
  }
}
