/**
 * Assertions about a run for any test runner: each throws node:assert's AssertionError (with
 * `actual` and `expected`) whose message shows what the run really is — its status, what it
 * waits on, its error and its history — so a failing test says why.
 *
 *   const { runId } = await t.engine.start('order', input)
 *   await t.runUntilIdle()
 *   await expectRun(t, runId).toComplete({ output: { shipped: true } })
 *   await expectRun(t, runId).toHaveRunSteps(['reserve', 'charge', 'ship'])
 *   await expectRun(t, runId).toHaveStepFailedThenSucceeded('charge', 2)
 */
import { AssertionError } from 'node:assert'
import { isDeepStrictEqual } from 'node:util'
import type { SerializedError } from '../contracts/codec.ts'
import type { Engine } from '../engine/engine.ts'
import type { RunInfo, RunOutcome, StepInfo } from '../engine/views.ts'
import { pickStep, recordedSteps, type StepOccurrence } from './recorded_steps.ts'
import { counted, describeError, describeRun, show } from './run_description.ts'

/** What the expectations read: an engine, or a harness holding one (`createTestEngine`). */
export type RunReader = Pick<Engine, 'waitForRun' | 'getRun' | 'getSteps'>
/** `expectRun`'s first argument: the engine, or the `createTestEngine()` harness. */
export type ExpectRunTarget = RunReader | { readonly engine: RunReader }

/** How long the ending expectations wait for the run to end (real time, ms) unless told. */
export const DEFAULT_EXPECT_TIMEOUT_MS = 5_000

/** Options of every expectation that waits for the run to end. */
export interface EndExpectation {
  /**
   * Real time to wait for the run to end (as `waitForRun`'s): an integer number of ms or
   * `Infinity`. Default 5000. A fake clock does not move while waiting: a run asleep on one
   * stays asleep until the test advances it (`t.skipTime`, `t.runUntilIdle`).
   */
  timeoutMs?: number
}

/** `toComplete`'s options. */
export interface CompleteExpectation<O = unknown> extends EndExpectation {
  /** The output, compared with `isDeepStrictEqual` (present even when `undefined`). */
  output?: O
}

/** `toFail`'s options: the ones given must all hold. */
export interface FailExpectation extends EndExpectation {
  /** The error's `code` (`E_FATAL`, your own): compared exactly. */
  code?: string
  /** The error's message: a string must equal it, a RegExp must match it. */
  message?: string | RegExp
}

/** `toBeWaiting`'s options. */
export interface WaitingExpectation {
  /** What the run waits on (its `waitingOn`, e.g. `signal "approve"`): equal, or matching. */
  on?: string | RegExp
}

/** What `toComplete` resolves with: `runId` is the chain's last run. */
export type CompletedOutcome<O = unknown> = Extract<RunOutcome<O>, { status: 'completed' }>
/** What `toFail`, `toBeCancelled` and `toEndDead` resolve with: the run's error. */
export type UnsuccessfulOutcome = Exclude<RunOutcome, { status: 'completed' }>

/**
 * The expectations about one run. The ending ones (`toComplete`, `toFail`, `toBeCancelled`,
 * `toEndDead`) wait for the run to end through `engine.waitForRun`, following continueAsNew to
 * the chain's last run; `toBeWaiting` reads the run now, following the chain too. The step
 * ones read the named run's own history now (a successor's steps: pass its id).
 */
export interface RunExpectation {
  /** Ends `completed` (with `output`, when given). Resolves with the outcome. */
  toComplete<O = unknown>(expected?: CompleteExpectation<O>): Promise<CompletedOutcome<O>>
  /** Ends `failed` (with that `code` and `message`, when given). Resolves with the outcome. */
  toFail(expected?: FailExpectation): Promise<UnsuccessfulOutcome>
  /** Ends `cancelled` (`engine.cancel`, an execution timeout). */
  toBeCancelled(expected?: EndExpectation): Promise<UnsuccessfulOutcome>
  /** Ends `dead`: given up on after too many recoveries (docs/dead-letters.md). */
  toEndDead(expected?: EndExpectation): Promise<UnsuccessfulOutcome>
  /**
   * Is `waiting` now (on `on`, when given). No waiting: a run just started has not reached its
   * wait yet, so let the engine settle first (`await t.skipTime(0)`). Resolves with the run.
   */
  toBeWaiting(expected?: WaitingExpectation): Promise<RunInfo>
  /**
   * Recorded exactly these steps, in position order, whatever their status: the positions of
   * kind `local` (compensations included, as `compensate:<name>`), `step` and `transaction` —
   * not sleeps, signals, children or other waits.
   */
  toHaveRunSteps(names: readonly string[]): Promise<void>
  /** The step's recorded attempts (durable: they count across replays and crashes). */
  toHaveAttempts(stepName: string, attempts: number, which?: StepOccurrence): Promise<void>
  /** The step completed after exactly `failures` failed attempts (on attempt failures + 1). */
  toHaveStepFailedThenSucceeded(
    stepName: string,
    failures: number,
    which?: StepOccurrence,
  ): Promise<void>
}

/**
 * The expectations about run `runId`, read through `target` (an engine or a test harness).
 * Nothing is read until an expectation is awaited.
 */
export function expectRun(target: ExpectRunTarget, runId: string): RunExpectation {
  return new RunExpectations('engine' in target ? target.engine : target, runId)
}

class RunExpectations implements RunExpectation {
  private readonly reader: RunReader
  private readonly runId: string

  constructor(reader: RunReader, runId: string) {
    this.reader = reader
    this.runId = runId
  }

  async toComplete<O>(expected: CompleteExpectation<O> = {}): Promise<CompletedOutcome<O>> {
    const wantsOutput = 'output' in expected
    const goal = wantsOutput ? `complete with output ${show(expected.output)}` : 'complete'
    const outcome = await this.end<O>('toComplete', goal, 'completed', expected.timeoutMs)
    const matches =
      outcome.status === 'completed' &&
      (!wantsOutput || isDeepStrictEqual(outcome.output, expected.output))
    if (matches) return outcome
    const want = wantsOutput ? { status: 'completed', output: expected.output } : 'completed'
    const got = wantsOutput ? outcome : outcome.status
    return this.fail('toComplete', goal, outcome.runId, got, want)
  }

  async toFail(expected: FailExpectation = {}): Promise<UnsuccessfulOutcome> {
    const goal = `fail${expected.code === undefined ? '' : ` with code ${expected.code}`}${
      expected.message === undefined ? '' : ` with message ${show(expected.message)}`
    }`
    const outcome = await this.end('toFail', goal, 'failed', expected.timeoutMs)
    if (outcome.status === 'failed' && errorMatches(outcome.error, expected)) return outcome
    const got = outcome.status === 'completed' ? outcome : pickError(outcome.error, expected)
    const want = { status: 'failed', code: expected.code, message: expected.message }
    return this.fail('toFail', goal, outcome.runId, { status: outcome.status, ...got }, want)
  }

  toBeCancelled(expected: EndExpectation = {}): Promise<UnsuccessfulOutcome> {
    return this.endAs('cancelled', 'toBeCancelled', 'be cancelled', expected.timeoutMs)
  }

  toEndDead(expected: EndExpectation = {}): Promise<UnsuccessfulOutcome> {
    return this.endAs('dead', 'toEndDead', 'end dead', expected.timeoutMs)
  }

  async toBeWaiting(expected: WaitingExpectation = {}): Promise<RunInfo> {
    const on = expected.on
    const goal = `be waiting${on === undefined ? '' : ` on ${show(on)}`}`
    const run = await this.latest('toBeWaiting', goal)
    if (run.status === 'waiting' && (on === undefined || textMatches(run.waitingOn, on))) return run
    const hint =
      run.status === 'pending' || run.status === 'running'
        ? '\n(it has not reached a wait yet: let the engine settle first, e.g. `await t.skipTime(0)`)'
        : ''
    const actual = { status: run.status, waitingOn: run.waitingOn }
    const wanted = { status: 'waiting', waitingOn: on }
    return this.fail('toBeWaiting', goal, run.id, actual, wanted, hint)
  }

  async toHaveRunSteps(names: readonly string[]): Promise<void> {
    const actual = recordedSteps(await this.history('toHaveRunSteps')).map((step) => step.name)
    if (isDeepStrictEqual(actual, names)) return
    const goal = `have run steps ${show(names)}, but it ran ${show(actual)}`
    return this.fail('toHaveRunSteps', goal, this.runId, actual, names)
  }

  async toHaveAttempts(name: string, attempts: number, which: StepOccurrence = {}): Promise<void> {
    const step = await this.step('toHaveAttempts', name, which)
    if (step.attempts === attempts) return
    const goal = `have step "${name}" (#${step.seq}) with ${counted(attempts, 'attempt')}, but it has ${step.attempts}`
    return this.fail('toHaveAttempts', goal, this.runId, step.attempts, attempts)
  }

  async toHaveStepFailedThenSucceeded(
    name: string,
    failures: number,
    which: StepOccurrence = {},
  ): Promise<void> {
    const step = await this.step('toHaveStepFailedThenSucceeded', name, which)
    if (step.status === 'completed' && step.attempts === failures + 1) return
    const goal = `have step "${name}" (#${step.seq}) fail ${counted(failures, 'time')} then succeed, but it is ${step.status} after ${counted(step.attempts, 'attempt')}`
    const actual = { status: step.status, attempts: step.attempts }
    const wanted = { status: 'completed', attempts: failures + 1 }
    return this.fail('toHaveStepFailedThenSucceeded', goal, this.runId, actual, wanted)
  }

  /**
   * The chain's outcome, or an AssertionError describing the run still open at the deadline
   * (`status`: the ending the expectation wants).
   */
  private async end<O>(
    operator: string,
    goal: string,
    status: RunOutcome['status'],
    timeoutMs?: number,
  ): Promise<RunOutcome<O>> {
    const ms = timeoutMs ?? DEFAULT_EXPECT_TIMEOUT_MS
    try {
      return await this.reader.waitForRun<O>(this.runId, { timeoutMs: ms })
    } catch (error) {
      const code = (error as { code?: unknown } | null)?.code
      if (code === 'E_RUN_NOT_FOUND') return this.missing(operator, goal)
      if (code !== 'E_WAIT_TIMEOUT') throw error
      const open = (error as { details?: { runId?: string } }).details?.runId ?? this.runId
      const run = await this.reader.getRun(open)
      const extra = `\n(it had not ended after ${ms} ms${wakeHint(run)})`
      return this.fail(operator, goal, open, run?.status ?? 'unknown', status, extra)
    }
  }

  private async endAs(
    status: 'cancelled' | 'dead',
    operator: string,
    goal: string,
    timeoutMs?: number,
  ): Promise<UnsuccessfulOutcome> {
    const outcome = await this.end(operator, goal, status, timeoutMs)
    if (outcome.status === status) return outcome
    return this.fail(operator, goal, outcome.runId, outcome.status, status)
  }

  /** The run now, past any continueAsNew. */
  private async latest(operator: string, goal: string): Promise<RunInfo> {
    let run = await this.reader.getRun(this.runId)
    while (run?.status === 'continued' && run.continuedTo !== null)
      run = await this.reader.getRun(run.continuedTo)
    return run ?? this.missing(operator, goal)
  }

  private async history(operator: string): Promise<StepInfo[]> {
    if ((await this.reader.getRun(this.runId)) === null) return this.missing(operator, 'exist')
    return this.reader.getSteps(this.runId)
  }

  private async step(operator: string, name: string, which: StepOccurrence): Promise<StepInfo> {
    const picked = pickStep(recordedSteps(await this.history(operator)), name, which)
    if (typeof picked !== 'string') return picked
    return this.fail(operator, `have step "${name}", but ${picked}`, this.runId, undefined, name)
  }

  private missing(operator: string, goal: string): never {
    const message = `expected run "${this.runId}" to ${goal}, but no run has this id`
    throw new AssertionError({
      message,
      actual: null,
      expected: goal,
      operator: `expectRun.${operator}`,
    })
  }

  /** Throws the AssertionError, its message ending with the run `shownId` as it is now. */
  private async fail(
    operator: string,
    goal: string,
    shownId: string,
    actual: unknown,
    expected: unknown,
    extra = '',
  ): Promise<never> {
    const [run, steps] = await Promise.all([
      this.reader.getRun(shownId),
      this.reader.getSteps(shownId),
    ])
    const state = run === null ? `run "${shownId}" no longer exists` : describeRun(run, steps)
    const message = `expected run "${this.runId}" to ${goal}${extra}\n${state}`
    throw new AssertionError({ message, actual, expected, operator: `expectRun.${operator}` })
  }
}

function textMatches(text: string | null | undefined, expected: string | RegExp): boolean {
  if (text === null || text === undefined) return false
  // search(), not test(): a RegExp with the g or y flag keeps state between test() calls.
  return typeof expected === 'string' ? text === expected : text.search(expected) !== -1
}

function errorMatches(error: SerializedError, expected: FailExpectation): boolean {
  if (expected.code !== undefined && error.code !== expected.code) return false
  return expected.message === undefined || textMatches(error.message, expected.message)
}

/** The error's fields the expectation named (for `actual`), or a one-line description. */
function pickError(error: SerializedError, expected: FailExpectation): object {
  if (expected.code === undefined && expected.message === undefined)
    return { error: describeError(error) }
  return { code: error.code, message: error.message }
}

function wakeHint(run: RunInfo | null): string {
  if (run?.wakeAt == null) return ''
  return `; it wakes at ${run.wakeAt.toISOString()}: on a fake clock, advance time first (t.skipTime, t.runUntilIdle)`
}
