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
import type { ClaimedEventBatch } from '../contracts/event_batches.ts'
import { CairnError, ErrorCodes } from '../errors/index.ts'
import { MAX_CLAIM_WORKFLOWS } from '../store/event_batch_rules.ts'
import { DueLoop, type PassResult } from './due_loop.ts'
import { batchRunId } from './event_batch_spec.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { StartedRun } from './run_starter.ts'

/** Accumulators one claim takes. */
const CLAIM_LIMIT = 20
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

export interface EventBatchFirerDeps {
  options: ResolvedEngineOptions
  /** The workflows this engine registers (any version): it claims only their accumulators. */
  workflows(): readonly string[]
  /** engine.start of `workflow` with `input` under `runId`. */
  start(workflow: string, input: unknown, runId: string): Promise<StartedRun>
}

export class EventBatchFirer {
  readonly #deps: EventBatchFirerDeps
  readonly #loop: DueLoop

  constructor(deps: EventBatchFirerDeps) {
    this.#deps = deps
    this.#loop = new DueLoop(deps.options, {
      pass: (active) => this.#claimAndStart(active),
      failure:
        'cairn: claiming due event batches failed; retrying (their runs start late, none is lost)',
    })
  }

  /** A claim or its starts are in flight (harnesses wait for it before moving a fake clock). */
  get busy(): boolean {
    return this.#loop.busy
  }

  /** The engine drives runs: fire what is due, and keep watching. */
  start(): void {
    this.#loop.start()
  }

  stop(): void {
    this.#loop.stop()
  }

  /** An accumulator this engine added to is due at `at`: fire then (if driving). */
  dueAt(at: number): void {
    this.#loop.dueAt(at)
  }

  /** A workflow was registered while driving: its due accumulators are this engine's to fire. */
  workflowsChanged(): void {
    this.#loop.now()
  }

  /** One claim per slice of the workflows and its starts: 'more' when one was full. */
  async #claimAndStart(active: () => boolean): Promise<PassResult> {
    const { store, clock, instanceId, leaseMs } = this.#deps.options
    const all = this.#deps.workflows()
    let next: number | null = null
    let more = false
    for (let i = 0; i < all.length && active(); i += MAX_CLAIM_WORKFLOWS) {
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
