/**
 * What the transport conformance tests stand on: a fresh transport per test (its engine half
 * and as many worker halves as a test asks), message builders, and waits that fail with what
 * arrived instead of hanging. Real time: holds and backoffs are a few hundred milliseconds, and
 * every wait is for an event with a generous deadline, never a timing assertion.
 */
import type {
  EngineTransport,
  ReceivedTask,
  RefusedMessage,
  WorkerReport,
  WorkerTransport,
} from '@cairn/core/contracts'
import { taskIdOf, type ResultMessage, type TaskMessage } from '@cairn/core/wire'
import type { TestFn } from '../harness.ts'

export interface TransportUnderTest {
  engine(): EngineTransport
  worker(): WorkerTransport
  /**
   * What `depth` counts: `all` (the default), or `ready` for a transport whose broker counts only
   * due tasks nobody holds — it must then report delayed, held, the oldest age and the count of
   * redeliveries as null, never as a number it does not know.
   */
  depthCounts?: 'all' | 'ready'
  /** Every message the transport refused so far (its `onRefused`). */
  refused: RefusedMessage[]
  /** Raw text on the task stream for `step`, as a misbehaving producer would send it. */
  publishRawTask(taskId: string, text: string, step: string): Promise<void>
  /** Raw text on the report stream, as a misbehaving worker would send it. */
  sendRawReport(text: string): Promise<void>
  cleanup(): Promise<void>
}

export interface TransportFactory {
  /** Shown in every test name. */
  name: string
  /** A new, empty transport; the suite opens and closes the halves it makes. */
  create(): Promise<TransportUnderTest>
}

export type DefineTransportTest = (
  name: string,
  body: (t: TransportUnderTest, halves: Halves) => Promise<void>,
) => void

/** Makes opened halves and closes them after the test. */
export interface Halves {
  engine(): Promise<EngineTransport>
  worker(): Promise<WorkerTransport>
}

export function transportDefiner(
  test: TestFn,
  factory: TransportFactory,
  group: string,
): DefineTransportTest {
  return (name, body) => {
    test(`${factory.name} transport: ${group}: ${name}`, async () => {
      const t = await factory.create()
      const opened: { close(): Promise<void> }[] = []
      const halves: Halves = {
        engine: async () => {
          const half = t.engine()
          await half.open()
          opened.push(half)
          return half
        },
        worker: async () => {
          const half = t.worker()
          await half.open()
          opened.push(half)
          return half
        },
      }
      try {
        await body(t, halves)
      } finally {
        for (const half of opened.reverse()) await half.close()
        await t.cleanup()
      }
    })
  }
}

let runCounter = 0

/** A task message for `step`: a fresh run id per call unless given. */
export function task(step: string, fields: Partial<TaskMessage> = {}): TaskMessage {
  const runId = fields.runId ?? `run-${process.pid}-${++runCounter}`
  const seq = fields.seq ?? 0
  const attempt = fields.attempt ?? 1
  return {
    v: 1,
    type: 'task',
    taskId: taskIdOf({ runId, seq, attempt }),
    runId,
    seq,
    attempt,
    step,
    input: '{"n":1}',
    requires: [],
    timeoutMs: null,
    heartbeatIntervalMs: 1000,
    dispatchedAt: Date.now(),
    ...fields,
  }
}

export function resultFor(task: TaskMessage, output = '"done"', workerId = 'w-1'): ResultMessage {
  const now = Date.now()
  return {
    v: 1,
    type: 'result',
    taskId: task.taskId,
    runId: task.runId,
    seq: task.seq,
    attempt: task.attempt,
    workerId,
    startedAt: now,
    finishedAt: now,
    outcome: { status: 'completed', output },
  }
}

export const HOLD_MS = 400

/** Receives with the suite's defaults; `waitMs` bounds the wait (resolves [] after it). */
export async function receive(
  worker: WorkerTransport,
  steps: string[],
  options: { max?: number; capabilities?: string[]; holdMs?: number; waitMs?: number } = {},
): Promise<ReceivedTask[]> {
  const signal = AbortSignal.timeout(options.waitMs ?? 5_000)
  return worker.receive({
    steps,
    capabilities: options.capabilities ?? [],
    max: options.max ?? 1,
    holdMs: options.holdMs ?? HOLD_MS,
    signal,
  })
}

/** Collects the engine half's reports; `until` waits for a condition on them. */
export async function collectReports(engine: EngineTransport): Promise<ReportLog> {
  const log = new ReportLog()
  await engine.consume(async (reports) => {
    log.add(reports)
  })
  return log
}

export class ReportLog {
  readonly reports: WorkerReport[] = []
  #waiters: (() => void)[] = []

  add(reports: readonly WorkerReport[]): void {
    this.reports.push(...reports)
    for (const wake of this.#waiters.splice(0)) wake()
  }

  results(): ResultMessage[] {
    return this.reports.filter((r): r is ResultMessage => r.type === 'result')
  }

  async until(what: string, done: (log: ReportLog) => boolean, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!done(this)) {
      const left = deadline - Date.now()
      if (left <= 0)
        throw new Error(
          `no ${what} after ${timeoutMs} ms; reports: ${JSON.stringify(this.reports)}`,
        )
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.min(left, 200))
        this.#waiters.push(() => {
          clearTimeout(timer)
          resolve()
        })
      })
    }
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
