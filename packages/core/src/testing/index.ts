/** `@cairn/core/testing`: run workflows in tests with a memory store and a clock you control. */
export { FakeClock, settle } from './fake_clock.ts'
export { createTestEngine, type TestEngine } from './test_engine.ts'
export {
  createMemoryTransport,
  type MemoryTransport,
  type MemoryTransportOptions,
} from './memory_transport.ts'
export type { MemoryBroker } from './memory_broker.ts'
export { firstAttemptTask, type FirstAttemptTask } from './task_message.ts'
