/**
 * close() is bounded whatever the transport does: a transport whose backend is down or stopped
 * answering leaves a receive, a result, the leaving announcement or its own close pending for
 * ever, and a worker that waited for them would never exit (a `durable:worker` once stayed up
 * an hour after SIGTERM). Each test gives the worker a transport that never settles one of
 * them; a close that hung would be failed by the test's timeout, not by a measured duration.
 */
import { firstAttemptTask } from '@cairn/core/testing'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createCodec } from '@cairn/core/codec'
import type { Logger, ReceiveOptions, ReceivedTask, WorkerTransport } from '@cairn/core/contracts'
import type { AnnounceMessage, TaskMessage } from '@cairn/core/wire'
import { createWorker } from '../src/index.ts'

/** Far more than a bounded close takes (drain + twice CLOSE_GRACE_MS), far less than a hang. */
const HANG = { timeout: 60_000 }

const codec = createCodec()
let counter = 0

function taskFor(step: string): TaskMessage {
  const runId = `run-${++counter}`
  return firstAttemptTask({ runId, step, heartbeatIntervalMs: 60_000 })
}

const NEVER = new Promise<never>(() => {})

/**
 * A worker transport that delivers `tasks` once, then waits for the abort; each `stuck` method
 * never settles (a result's `complete` for `complete`, only the leaving one for `leave`).
 */
class StuckTransport implements WorkerTransport {
  readonly name = 'stuck'
  readonly stuck: ReadonlySet<'open' | 'receive' | 'complete' | 'leave' | 'close'>
  tasks: TaskMessage[]
  readonly announced: AnnounceMessage[] = []
  readonly handedBack: string[] = []
  receives = 0
  opened: () => void = () => {}
  /** The stuck receive in flight, to settle by hand. */
  late: ((tasks: ReceivedTask[]) => void) | null = null

  constructor(stuck: StuckTransport['stuck'], tasks: TaskMessage[] = []) {
    this.stuck = stuck
    this.tasks = tasks
  }

  open(): Promise<void> {
    if (!this.stuck.has('open')) return Promise.resolve()
    return new Promise((resolve) => (this.opened = resolve))
  }

  close(): Promise<void> {
    return this.stuck.has('close') ? NEVER : Promise.resolve()
  }

  async receive(options: ReceiveOptions): Promise<ReceivedTask[]> {
    this.receives += 1
    if (this.stuck.has('receive'))
      return new Promise<ReceivedTask[]>((resolve) => (this.late = resolve))
    const tasks = this.tasks.splice(0, options.max)
    if (tasks.length > 0) return tasks.map((task) => this.received(task))
    await new Promise<void>((resolve) => options.signal.addEventListener('abort', () => resolve()))
    return []
  }

  announce(message: AnnounceMessage): Promise<void> {
    this.announced.push(message)
    return message.leaving === true && this.stuck.has('leave') ? NEVER : Promise.resolve()
  }

  received(message: TaskMessage): ReceivedTask {
    return {
      message,
      heartbeat: async () => 'held',
      complete: () => (this.stuck.has('complete') ? NEVER : Promise.resolve()),
      handBack: async () => {
        this.handedBack.push(message.taskId)
      },
    }
  }
}

interface Logged {
  level: 'warn' | 'error'
  obj: unknown
  msg: string
}

function recordingLogger(): { logger: Logger; logged: Logged[] } {
  const logged: Logged[] = []
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (obj, msg) => logged.push({ level: 'warn', obj, msg: msg ?? '' }),
    error: (obj, msg) => logged.push({ level: 'error', obj, msg: msg ?? '' }),
  }
  return { logger, logged }
}

async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** A handler that ends only when its attempt is aborted (past the drain). */
const untilAborted = (_input: unknown, step: { signal: AbortSignal }) =>
  new Promise((_resolve, reject) =>
    step.signal.addEventListener('abort', () => reject(step.signal.reason as Error)),
  )

void test(
  'close returns when a receive never does; a task it brings later is handed back, not run',
  HANG,
  async () => {
    const transport = new StuckTransport(new Set(['receive']))
    const { logger, logged } = recordingLogger()
    let ran = 0
    const worker = createWorker({
      transport,
      logger,
      steps: {
        work: () => {
          ran += 1
          return null
        },
      },
    })
    await worker.start()
    await until(() => transport.late !== null)
    await worker.close(20)
    assert.ok(
      logged.some((l) => l.level === 'warn' && /a receive did not return/.test(l.msg)),
      JSON.stringify(logged),
    )
    const late = taskFor('work')
    transport.late?.([transport.received(late)])
    await until(() => transport.handedBack.length > 0)
    assert.deepEqual(transport.handedBack, [late.taskId])
    assert.equal(ran, 0, 'a task taken after the drain is not run')
  },
)

void test(
  "close returns when an aborted attempt's result is never sent, naming the tasks it gave up",
  HANG,
  async () => {
    const task = taskFor('work')
    const transport = new StuckTransport(new Set(['complete']), [task])
    const { logger, logged } = recordingLogger()
    const worker = createWorker({ transport, logger, steps: { work: untilAborted } })
    await worker.start()
    await until(() => worker.inFlight === 1)
    await worker.close(20)
    const gaveUp = logged.find((l) => l.level === 'error' && /results not sent/.test(l.msg))
    assert.deepEqual(gaveUp?.obj, { taskIds: [task.taskId] }, JSON.stringify(logged))
    assert.equal(transport.announced.at(-1)?.leaving, true, 'it still says it leaves')
  },
)

void test('close returns when the leaving announcement never completes', HANG, async () => {
  const transport = new StuckTransport(new Set(['leave']))
  const worker = createWorker({
    transport,
    logger: recordingLogger().logger,
    steps: { a: () => 1 },
  })
  await worker.start()
  await worker.close(20)
  assert.equal(transport.announced.at(-1)?.leaving, true)
})

void test(
  "close returns when the transport's close never does, and says so at error",
  HANG,
  async () => {
    const transport = new StuckTransport(new Set(['close']))
    const { logger, logged } = recordingLogger()
    const worker = createWorker({ transport, logger, steps: { a: () => 1 } })
    await worker.start()
    await worker.close(20)
    assert.ok(
      logged.some((l) => l.level === 'error' && /the transport did not close/.test(l.msg)),
      JSON.stringify(logged),
    )
  },
)

void test(
  'a close during start: the start resolves without taking tasks or announcing after the close',
  HANG,
  async () => {
    const transport = new StuckTransport(new Set(['open']), [taskFor('a')])
    const worker = createWorker({
      transport,
      logger: recordingLogger().logger,
      steps: { a: () => 1 },
    })
    const starting = worker.start()
    await worker.close(20)
    const leftAt = transport.announced.length
    transport.opened() // the transport's open finishes after the close
    await starting
    assert.equal(transport.receives, 0, 'no receive after the close')
    assert.equal(transport.announced.length, leftAt, 'no announcement after the leaving one')
  },
)

void test(
  'close(Infinity) waits for a running attempt to finish (a timer cannot hold Infinity)',
  HANG,
  async () => {
    const task = taskFor('slow')
    const transport = new StuckTransport(new Set(), [task])
    const worker = createWorker({
      transport,
      logger: recordingLogger().logger,
      steps: {
        slow: async (_input, step) => {
          await new Promise((resolve) => setTimeout(resolve, 100))
          return step.signal.aborted ? 'aborted' : 'finished'
        },
      },
    })
    let completed: unknown
    const received = transport.received.bind(transport)
    transport.received = (message) => ({
      ...received(message),
      complete: async (result) => {
        completed = result.outcome
      },
    })
    await worker.start()
    await until(() => worker.inFlight === 1)
    await worker.close(Number.POSITIVE_INFINITY)
    assert.deepEqual(completed, { status: 'completed', output: codec.encode('finished', 'output') })
  },
)

void test(
  'a failed hand-back of a task for a step this worker does not serve is logged, not a crash',
  HANG,
  async () => {
    // An unhandled rejection would fail this test (and crash a worker process).
    const transport = new StuckTransport(new Set(), [taskFor('unserved')])
    transport.received = (message) => ({
      message,
      heartbeat: async () => 'held',
      complete: async () => {},
      handBack: async () => {
        throw new Error('injected: backend down')
      },
    })
    const { logger, logged } = recordingLogger()
    const worker = createWorker({ transport, logger, steps: { work: () => null } })
    await worker.start()
    await until(() => logged.some((entry) => entry.level === 'error'))
    await worker.close(0)
    assert.match(
      logged.find((entry) => entry.level === 'error')?.msg ?? '',
      /could not hand back a task for a step this worker does not serve/,
    )
  },
)
