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
export {
  DEFAULT_EXPECT_TIMEOUT_MS,
  expectRun,
  type CompletedOutcome,
  type CompleteExpectation,
  type EndExpectation,
  type ExpectRunTarget,
  type FailExpectation,
  type RunExpectation,
  type RunReader,
  type UnsuccessfulOutcome,
  type WaitingExpectation,
} from './expect_run.ts'
export type { StepOccurrence } from './recorded_steps.ts'
export { failOnce, failTimes, type CallCount, type InjectedError } from './fault_injection.ts'
export {
  replayHistory,
  type ReplayRegistration,
  type ReplayOptions,
  type ReplayReport,
  type ReplayEnd,
} from './replay_history.ts'
