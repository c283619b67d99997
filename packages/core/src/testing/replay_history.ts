/**
 * `replayHistory`: run today's workflow code against a run's recorded history
 * (`engine.exportHistory`) and fail the way production would if that run resumed on it.
 *
 *   const history = JSON.parse(readFileSync('fixtures/order-42.json', 'utf8'))
 *   await replayHistory({ register: registerWorkflows }, history) // throws E_NON_DETERMINISM
 *
 * How: the recorded run and its checkpoints are put into a fresh memory store (replay_seed.ts)
 * and a real engine, on a fake clock that never moves, claims and replays it — so every check
 * is production's own: a position whose recorded step differs from the one the code asks for,
 * a recorded outcome the code never asks for, parks the run with E_NON_DETERMINISM, and that
 * park's message (the one `getRun` and the dashboard show) is the error's.
 *
 * The end of the history is where a replay stops: nothing the history does not record is run.
 * A step past it is reached but not run (replay_guard.ts), a timer past it never fires, an
 * open wait stays open. The report says where it stopped.
 */
import type { Codec } from '../contracts/codec.ts'
import type { RunRecord } from '../contracts/records.ts'
import { silentLogger } from '../engine/default_logger.ts'
import { Engine } from '../engine/engine.ts'
import { checkRecordedHistory, type RecordedHistory } from '../engine/history_export.ts'
import {
  ErrorCodes,
  NonDeterminismError,
  WorkflowNotRegisteredError,
  type StepIdentity,
} from '../errors/index.ts'
import type { WorkflowBody } from '../execution/types.ts'
import { MemoryStore } from '../store/index.ts'
import { FakeClock } from './fake_clock.ts'
import { guardRegistrations, NewCodeStop } from './replay_guard.ts'
import { seedRecordedRun, type ReplayKey } from './replay_seed.ts'

/** The workflow code under test, registered the way the application registers it. */
export interface ReplayRegistration {
  /**
   * Registers the workflows (the replayed one, its children) and the steps they call on the
   * replay's engine — typically the application's own registration function. A promise it
   * returns is awaited.
   */
  register: (engine: Engine) => unknown
  /** The workflow to replay the history on. Default: the history's (`run.workflow`). */
  workflow?: string
  /** Its version. Default: the history's (`run.version`): a run only ever runs its version. */
  version?: string | number
}

export interface ReplayOptions {
  /** The codec of the engine that recorded the history (payload transform included). Default: JsonCodec. */
  codec?: Codec
}

/** Where a passing replay stopped. */
export type ReplayEnd =
  /** The body returned (or threw) after asking for every recorded outcome. */
  | { kind: 'finished'; status: 'completed' | 'failed' | 'cancelled' | 'continued' }
  /** The body waits on something the history leaves open (a sleep, a signal, a child). */
  | { kind: 'waiting'; on: string }
  /** The body asked to run something the history holds no outcome for: not run. */
  | { kind: 'new-code'; what: string; seq: number | null }
  /** The run parked for a reason other than non-determinism (E_STEP_NOT_REGISTERED, …). */
  | { kind: 'parked'; code: string; message: string }

export interface ReplayReport {
  runId: string
  workflow: string
  version: string
  /** Recorded outcomes the code asked for, each at its position, in its recorded order. */
  positions: number
  endedAt: ReplayEnd
}

/**
 * Replay `history` (a RecordedHistory, for instance a parsed fixture) on the current code of
 * its workflow: `target` is the body itself, or a registration. Resolves with a report when
 * the code matches the history up to its end; rejects with a NonDeterminismError
 * (E_NON_DETERMINISM, production's message) when it does not, with E_INVALID_ARGUMENT for a
 * malformed history and E_WORKFLOW_NOT_REGISTERED when the registration lacks the workflow.
 * Touches no real store, no network and no real timer: a memory store, a fake clock.
 */
export async function replayHistory<I, O>(
  target: WorkflowBody<I, O> | ReplayRegistration,
  history: RecordedHistory,
  options: ReplayOptions = {},
): Promise<ReplayReport> {
  const recorded = checkRecordedHistory(history)
  const stop = new NewCodeStop()
  const store = new MemoryStore()
  const engine = new Engine({
    store,
    clock: new FakeClock(recorded.run.createdAt),
    ...(options.codec === undefined ? {} : { codec: options.codec }),
    logger: silentLogger,
    instanceId: 'cairn-replay',
    // Every wait suspends the run, so the report can say what it waits on.
    holdTimersUpToMs: 0,
  })
  try {
    guardRegistrations(engine, stop)
    const key = await registerTarget(engine, target, recorded)
    await engine.open()
    await seedRecordedRun(store, recorded, key)
    await engine.startDriving()
    const run = await replayed(engine, store, recorded.run.id)
    return { runId: run.id, ...key, positions: deliveredCount(recorded), endedAt: endOf(run, stop) }
  } finally {
    await engine.close(0)
  }
}

async function registerTarget<I, O>(
  engine: Engine,
  target: WorkflowBody<I, O> | ReplayRegistration,
  history: RecordedHistory,
): Promise<ReplayKey> {
  if (typeof target === 'function') {
    engine.register(history.run.workflow, history.run.version, target)
    return { workflow: history.run.workflow, version: history.run.version }
  }
  await target.register(engine)
  const key = {
    workflow: target.workflow ?? history.run.workflow,
    version: String(target.version ?? history.run.version),
  }
  const registered = engine.registeredWorkflows()
  if (!registered.some((k) => k.workflow === key.workflow && k.version === key.version))
    throw new WorkflowNotRegisteredError(
      `replay: the code registers no workflow "${key.workflow}" version "${key.version}" (it registers ${
        registered.map((k) => `"${k.workflow}" ${k.version}`).join(', ') || 'none'
      })`,
      { details: { ...key } },
    )
  return key
}

/** The run once its turn is over or quiet: every recorded outcome delivered, or a park. */
async function replayed(engine: Engine, store: MemoryStore, runId: string): Promise<RunRecord> {
  for (let round = 0; ; round++) {
    await engine.whenQuiet()
    const run = await store.getRun(runId)
    if (run !== null && run.status !== 'pending') return run
    // The claim is made as the engine starts driving: a run still pending is a bug here.
    if (round === 20) throw new Error(`replay: the engine did not take run "${runId}" up`)
  }
}

function endOf(run: RunRecord, stop: NewCodeStop): ReplayEnd {
  if (run.status === 'parked') return parkedEnd(run)
  if (
    run.status === 'completed' ||
    run.status === 'failed' ||
    run.status === 'cancelled' ||
    run.status === 'continued'
  )
    return { kind: 'finished', status: run.status }
  if (stop.first !== null) return { kind: 'new-code', ...stop.first }
  return { kind: 'waiting', on: run.waitingOn ?? 'a wait held in memory' }
}

/** A non-determinism park is the replay's failure, with the park's own message. */
function parkedEnd(run: RunRecord): ReplayEnd {
  const reason = run.parkReason ?? { code: 'unknown', message: 'no reason recorded' }
  if (reason.code !== ErrorCodes.NON_DETERMINISM)
    return { kind: 'parked', code: reason.code, message: reason.message }
  const details = reason.details ?? {}
  throw new NonDeterminismError(
    reason.message,
    (details.recorded as StepIdentity | null | undefined) ?? null,
    (details.attempted as StepIdentity | null | undefined) ?? null,
  )
}

function deliveredCount(history: RecordedHistory): number {
  return history.checkpoints.filter(
    (c) => c.order !== null && (c.status === 'completed' || c.status === 'failed'),
  ).length
}
