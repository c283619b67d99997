/**
 * @cairn/core/otel: OpenTelemetry tracing for Cairn (docs/tracing.md). Needs the optional
 * peer dependency @opentelemetry/api; nothing else in @cairn/core imports it.
 */
export {
  instrumentCairn,
  TRACER_NAME,
  type CairnInstrumentation,
  type InstrumentOptions,
} from './instrument.ts'
export { ATTR as CAIRN_SPAN_ATTRIBUTES } from './attributes.ts'
