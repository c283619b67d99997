/**
 * The memory transport: engines and workers of one process meet in a MemoryBroker. For tests
 * and examples — it holds nothing across a restart (the engine republishes from the store) —
 * and the reference the transport conformance suite is written against.
 *
 *   const transport = createMemoryTransport({ clock })
 *   const engineSide = transport.engine()   // EngineTransport
 *   const workerSide = transport.worker()   // WorkerTransport, one per worker
 */
import type { Clock } from '../contracts/clock.ts'
import type {
  EngineTransport,
  ReceiveOptions,
  ReceivedTask,
  TaskDepth,
  TaskToPublish,
  TransportOptions,
  WithdrawOutcome,
  WorkerReport,
  WorkerTransport,
} from '../contracts/transport.ts'
import { systemClock } from '../clock/system_clock.ts'
import { InvalidArgumentError } from '../errors/index.ts'
import {
  checkReceiveOptions,
  ProtocolGate,
  type AnnounceMessage,
  type HeartbeatMessage,
  type ResultMessage,
  type TaskMessage,
} from '../wire/index.ts'
import { MemoryBroker, type Delivered } from './memory_broker.ts'

export interface MemoryTransportOptions extends TransportOptions {
  clock?: Clock
  /** A rejected report batch is delivered again after this long (ms). Default 100. */
  redeliverAfterMs?: number
}

export interface MemoryTransport {
  readonly broker: MemoryBroker
  engine(): EngineTransport
  worker(): WorkerTransport
}

export function createMemoryTransport(options: MemoryTransportOptions = {}): MemoryTransport {
  const broker = new MemoryBroker(options.clock ?? systemClock, {
    ...(options.redeliverAfterMs === undefined
      ? {}
      : { redeliverAfterMs: options.redeliverAfterMs }),
    ...(options.onRefused === undefined ? {} : { onRefused: options.onRefused }),
  })
  return {
    broker,
    engine: () => new MemoryEngineTransport(broker),
    worker: () => new MemoryWorkerTransport(broker),
  }
}

class MemoryEngineTransport implements EngineTransport {
  readonly name = 'memory'
  readonly #broker: MemoryBroker
  #consumer: ((reports: readonly WorkerReport[]) => Promise<void>) | null = null

  constructor(broker: MemoryBroker) {
    this.#broker = broker
  }

  async open(): Promise<void> {}

  async close(): Promise<void> {
    const consumer = this.#consumer
    this.#consumer = null
    if (consumer !== null) await this.#broker.removeConsumer(consumer)
  }

  async publish(tasks: readonly TaskToPublish[]): Promise<void> {
    this.#broker.publish(tasks)
  }

  async consume(handler: (reports: readonly WorkerReport[]) => Promise<void>): Promise<void> {
    if (this.#consumer !== null)
      throw new InvalidArgumentError('this transport already has a consumer')
    this.#consumer = handler
    this.#broker.addConsumer(handler)
  }

  async workers(since: number): Promise<AnnounceMessage[]> {
    return this.#broker.workers(since)
  }

  async withdraw(task: TaskMessage): Promise<WithdrawOutcome> {
    return this.#broker.withdraw(task.taskId)
  }

  async depth(): Promise<TaskDepth[]> {
    return this.#broker.depth()
  }
}

class MemoryWorkerTransport implements WorkerTransport {
  readonly name = 'memory'
  readonly #broker: MemoryBroker
  /** This worker's holds: one identity per transport, so one worker cannot release another's. */
  readonly #holder = Symbol('memory worker')
  readonly #gate = new ProtocolGate()

  constructor(broker: MemoryBroker) {
    this.#broker = broker
  }

  async open(): Promise<void> {}

  async close(): Promise<void> {
    this.#broker.handBackAll(this.#holder)
  }

  async receive(options: ReceiveOptions): Promise<ReceivedTask[]> {
    this.#gate.assertAdmitted()
    checkReceiveOptions(options)
    const delivered = await this.#broker.receive(options, this.#holder)
    return delivered.map((task) => this.#received(task, options.holdMs))
  }

  async announce(message: AnnounceMessage): Promise<void> {
    this.#gate.check(message)
    this.#broker.announce(JSON.stringify(message))
  }

  #received(task: Delivered, holdMs: number): ReceivedTask {
    const broker = this.#broker
    const holder = this.#holder
    return {
      message: task.message,
      heartbeat: async (message: HeartbeatMessage) => {
        if (!broker.extend(task.taskId, holder, holdMs)) return 'lost'
        broker.report(message)
        return 'held'
      },
      complete: async (result: ResultMessage) => {
        broker.report(result)
        broker.release(task.taskId, holder)
      },
      handBack: async () => broker.handBack(task.taskId, holder),
    }
  }
}
