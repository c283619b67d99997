/**
 * @cairn/core/wire — the messages between engines and workers (docs/wire.md): their types, the
 * parser every transport and worker reads them with, task ids and protocol versions. Nothing
 * here loads the engine or a store, so a worker can import it alone.
 */
export type * from './messages.ts'
export {
  parseWireMessage,
  DEFAULT_MAX_MESSAGE_BYTES,
  type WireParse,
  type WireParseOptions,
  type WireRefusal,
} from './parse.ts'
export { taskIdOf, parseTaskId, type TaskAddress } from './task_id.ts'
export { PROTOCOL_VERSIONS, agreedProtocol, checkAnnouncedProtocols } from './protocol.ts'
export { ProtocolGate } from './protocol_gate.ts'
export { checkReceiveOptions } from './receive_options.ts'
export { mergeTaskDepths, redeliveryRows } from './task_depths.ts'
export { MAX_NAME_LENGTH, MAX_DURATION_MS, MAX_LIST_LENGTH } from './fields.ts'
export { CAPABILITY_NAME, MAX_CAPABILITIES, checkCapabilities } from './capabilities.ts'
// For transports' options: their worker halves must not import store-kit (it brings the memory store).
export { checkInteger, type IntegerRange } from '../util/numbers.ts'
export { checkOptionKeys, optionNames, type OptionsSpec } from '../util/known_keys.ts'
export {
  TRANSPORT_TUNING_KEYS,
  resolveTransportTuning,
  type TransportTuning,
  type TransportTuningOptions,
  type TuningDefaults,
} from './transport_tuning.ts'
// A bound on a transport's or worker's close: a backend that stopped answering must not hold it.
export { untilDeadline } from '../util/deadline.ts'
// A step's own input/output schemas run where its handler runs, on workers too
// (docs/validation.md); this module loads no engine either.
export { checkStepSchemas, schemaCheckedHandler, type StepSchemas } from '../schema/step_schemas.ts'
// Step logs on a worker: the buffer its handlers' `stepCtx.log` fills, what reports carry, and
// the step scope `currentStep()` reads (shared with in-process steps: one module instance).
export { StepLogBuffer, type StepLogBufferOptions } from '../step_logs/step_log_buffer.ts'
export { DEFAULT_STEP_LOG_ENTRIES } from '../step_logs/step_log_rules.ts'
export { stepLogger, type StepLineWriter } from '../step_logs/step_logger.ts'
export { wireLogs, appendOfReport, MAX_WIRE_LOG_CHARS } from './step_log_wire.ts'
export { currentStep, runAsStep } from '../scope/current_context.ts'
