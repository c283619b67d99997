/**
 * A successor adopts its predecessor's unreceived signals. A run that continues as new may
 * leave signals in its inbox that no wait received (sent while it ran its last turn, or never
 * waited for); once it has ended `continued` its inbox can take nothing more, so its successor
 * copies them into its own inbox, oldest first, before it runs its first step — and before any
 * signal `engine.signal` forwards along the chain, so the chain keeps acceptance order.
 *
 * Idempotent: each copy carries the original's dedupe id (or one naming the original's seq),
 * so copying again after a crash, or from two places at once, stores each signal once. A
 * compensating cancel the predecessor never read moves too (the chain is what was cancelled).
 * Cairn's other messages (child outcomes, webhook callbacks, updates) are addressed to the
 * predecessor's positions and end with it.
 */
import type { StateStore } from '../contracts/state_store.ts'
import type { Committer } from './committer.ts'
import type { ResolvedEngineOptions } from './options.ts'
import { CANCEL_SIGNAL, RESERVED_PREFIX } from '../execution/wait_names.ts'

export interface AdoptionDeps {
  options: ResolvedEngineOptions
  committer: Committer
}

/** Copy `from`'s unreceived signals into `to`'s inbox; resolves once durable. */
export async function adoptInbox(deps: AdoptionDeps, from: string, to: string): Promise<void> {
  const messages = await deps.options.store.loadInbox(from)
  const signals = messages.filter(
    (m) => !m.name.startsWith(RESERVED_PREFIX) || m.name === CANCEL_SIGNAL,
  )
  if (signals.length === 0) return
  // Enqueued in seq order: the committer keeps a run's ops in order, so copies keep it too.
  await Promise.all(
    signals.map((m) =>
      deps.committer.enqueue(
        {
          type: 'deliverMessage',
          message: {
            runId: to,
            kind: m.kind,
            name: m.name,
            dedupeId: m.dedupeId ?? `${RESERVED_PREFIX}carried:${m.seq}`,
            payload: m.payload,
          },
        },
        true,
      ),
    ),
  )
}

/**
 * The successor of a `continued` run: where a signal or a cancel addressed to the chain goes
 * next. null when `runId` did not continue.
 */
export async function successorOf(store: StateStore, runId: string): Promise<string | null> {
  const run = await store.getRun(runId)
  return run?.status === 'continued' ? run.continuedTo : null
}
