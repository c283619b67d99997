/**
 * Parks runs that no engine can run: claimable for longer than `parkUnrunnableAfterMs` while
 * their workflow version is registered on no engine that polls. They become visible (status
 * `parked`, reason `E_WORKFLOW_NOT_REGISTERED`) instead of waiting silently, and are never
 * claimed meanwhile; an engine that registers the version unparks them. The same sweep
 * promotes singleton waiters stranded beside a free slot (stranded_waiters.ts) and grants
 * queue waiters beside a free slot (stranded_queue_waiters.ts).
 */
import type { TimerHandle } from '../contracts/clock.ts'
import type { ParkReason } from '../contracts/records.ts'
import { ErrorCodes } from '../errors/index.ts'
import type { ResolvedEngineOptions } from './options.ts'
import type { WorkflowRegistry } from './registry.ts'
import type { QueueRetries } from './queue_retries.ts'
import { grantStrandedQueues } from './stranded_queue_waiters.ts'
import { StrandedWaiters } from './stranded_waiters.ts'

export class ParkSweeper {
  private timer: TimerHandle | null = null
  /** A sweep is talking to the store (harnesses wait for it before moving a fake clock). */
  busy = false
  private readonly options: ResolvedEngineOptions
  private readonly registry: WorkflowRegistry
  /** Runs became claimable at `at` (promoted waiters): the driver looks at once. */
  private readonly wake: (at: number) => void
  /** The queues registered on this engine. */
  private readonly queues: () => readonly string[]
  /** Where the sweep's grants and throttled queues go (null: grants only wake the driver). */
  private readonly retries: QueueRetries | null
  private readonly stranded: StrandedWaiters

  constructor(
    options: ResolvedEngineOptions,
    registry: WorkflowRegistry,
    wake: (at: number) => void,
    queues: () => readonly string[] = () => [],
    retries: QueueRetries | null = null,
  ) {
    this.options = options
    this.registry = registry
    this.wake = wake
    this.queues = queues
    this.retries = retries
    this.stranded = new StrandedWaiters(options.store)
  }

  start(): void {
    if (this.timer === null) this.schedule(0)
  }

  stop(): void {
    this.timer?.cancel()
    this.timer = null
  }

  private schedule(delayMs: number): void {
    this.timer = this.options.clock.setTimer(delayMs, () => {
      void this.sweep().finally(() => {
        if (this.timer !== null)
          this.schedule(Math.max(1_000, Math.floor(this.options.parkUnrunnableAfterMs / 2)))
      })
    })
  }

  private async sweep(): Promise<void> {
    const { store, clock, parkUnrunnableAfterMs, logger } = this.options
    const keys = this.registry.keys()
    const now = clock.now()
    this.busy = true
    try {
      const parked =
        keys.length === 0
          ? 0
          : await store.parkUnrunnable(keys, now - parkUnrunnableAfterMs, this.reason(), now)
      if (parked > 0)
        logger.warn({ parked }, 'cairn: parked runs whose workflow version is not registered')
      const promoted = await this.stranded.sweep(clock.now())
      if (promoted > 0) {
        logger.warn(
          { promoted },
          'cairn: promoted singleton waiters whose holders ended without naming their key (an engine of an earlier version?) or whose promotion after an end failed',
        )
        this.wake(clock.now())
      }
      // Grants wake their runs; nothing to say: a raised concurrency is granted this way too,
      // and a rate-limited queue whose timer died with another engine.
      for (const report of await grantStrandedQueues(this.options, this.queues())) {
        if (this.retries !== null) this.retries.took(report)
        else if (report.grants.length > 0) this.wake(clock.now())
      }
    } catch (error) {
      logger.error({ err: error }, 'cairn: park sweep failed')
    } finally {
      this.busy = false
    }
  }

  private reason(): ParkReason {
    const { parkUnrunnableAfterMs, instanceId } = this.options
    return {
      code: ErrorCodes.WORKFLOW_NOT_REGISTERED,
      message: `no engine has run this workflow version for ${parkUnrunnableAfterMs} ms: it is not registered on instance "${instanceId}" (nor, apparently, on any other). Deploy code that registers it; the run resumes by itself.`,
      details: { parkedBy: instanceId, registered: this.registry.keys() },
    }
  }
}
