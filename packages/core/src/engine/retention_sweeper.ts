/**
 * The retention sweep of a driving engine (docs/retention.md): every `interval`, for each
 * policy, the bound past which its finished runs go (retention_bound.ts), then pages of them
 * oldest first (StateStore.expiredRuns), each page deleted with the runs' subtrees in bounded
 * transactions (run_tree_deleter.ts), until a page comes back short. No leader: engines
 * sweeping at once delete each tree once (the later one finds it gone). A run kept by an open
 * run (its parent, a descendant) is passed over and looked at again next sweep.
 */
import type { FinishedPosition } from '../contracts/retention.ts'
import { DueLoop, type PassResult } from './due_loop.ts'
import type { EventHub } from './events.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { expiryBound } from './retention_bound.ts'
import {
  deletionPauseMs,
  type ResolvedRetention,
  type ResolvedRetentionPolicy,
} from './retention_policy.ts'
import { deleteTrees } from './run_tree_deleter.ts'
import { setTimeout as sleep } from 'node:timers/promises'

export interface PolicySweep {
  policy: string
  /** Expired runs deleted (with their subtrees), runs deleted in all, runs kept by open runs. */
  roots: number
  runs: number
  refused: number
}

export class RetentionSweeper {
  readonly #options: ResolvedEngineOptions
  readonly #retention: ResolvedRetention
  readonly #events: EventHub
  readonly #loop: DueLoop
  #nextAt = 0
  readonly #pauseMs: number

  constructor(options: ResolvedEngineOptions, retention: ResolvedRetention, events: EventHub) {
    this.#options = options
    this.#retention = retention
    this.#events = events
    this.#pauseMs = deletionPauseMs(retention, options.store.kind)
    this.#loop = new DueLoop(options, {
      pass: (active) => this.#pass(active),
      failure: 'cairn: a retention sweep failed; retrying (finished runs are kept meanwhile)',
    })
  }

  get busy(): boolean {
    return this.#loop.busy
  }

  start(): void {
    this.#loop.start()
  }

  stop(): void {
    this.#loop.stop()
  }

  /** One sweep of every policy now, whatever the interval (engine.sweepRetention). */
  async sweepNow(): Promise<PolicySweep[]> {
    const sweeps: PolicySweep[] = []
    for (const policy of this.#retention.policies)
      sweeps.push(await this.#sweep(policy, () => true))
    return sweeps
  }

  async #pass(active: () => boolean): Promise<PassResult> {
    const now = this.#options.clock.now()
    if (now < this.#nextAt) return this.#nextAt
    for (const policy of this.#retention.policies) {
      if (!active()) return null
      // One policy failing (a statement timeout, the store away) does not hold the others
      // back, nor bring its own retry sooner than the next sweep.
      await this.#sweep(policy, active).catch((error: unknown) =>
        this.#options.logger.error(
          { err: error, policy: policy.name },
          'cairn: a retention policy sweep failed; the next sweep tries again',
        ),
      )
    }
    this.#nextAt = this.#options.clock.now() + this.#retention.intervalMs
    return this.#nextAt
  }

  async #sweep(policy: ResolvedRetentionPolicy, active: () => boolean): Promise<PolicySweep> {
    const { store, clock } = this.#options
    const started = clock.now()
    const sweep: PolicySweep = { policy: policy.name, roots: 0, runs: 0, refused: 0 }
    const before = await expiryBound(store, policy, started)
    const scope = {
      statuses: policy.statuses,
      ...(policy.workflow === undefined ? {} : { workflow: policy.workflow }),
    }
    const limit = this.#retention.batchSize
    let after: FinishedPosition | undefined
    while (before !== null && active()) {
      const page = await store.expiredRuns({ ...scope, before, limit, ...(after ? { after } : {}) })
      const expect = { statuses: policy.statuses, finishedBefore: before }
      const ids = page.map((run) => run.runId)
      for (const tree of await deleteTrees(store, ids, expect, this.#pauseMs)) {
        // Another engine's sweep took it; or it was requeued (and finished again) since.
        if (tree.outcome === 'not_found' || tree.outcome === 'changed') continue
        sweep.runs += tree.runs
        if (tree.outcome === 'deleted') sweep.roots++
        else sweep.refused++
      }
      if (page.length < limit) break
      after = page[page.length - 1]
      // Rest between transactions, so the store's other writers get in (retention.pause); even
      // a 0 rest yields: SQLite's calls settle at once, and a sweep would hold the event loop.
      await sleep(this.#pauseMs)
    }
    if (sweep.runs > 0 || sweep.refused > 0)
      this.#events.emit('retention:swept', { ...sweep, durationMs: clock.now() - started })
    return sweep
  }
}
