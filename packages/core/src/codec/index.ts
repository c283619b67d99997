/** The default payload codec and the error records the engine stores (docs/codec.md). */
export {
  JsonCodec,
  createCodec,
  DEFAULT_MAX_BYTES,
  DEFAULT_MAX_DEPTH,
  MAX_MAX_DEPTH,
  type JsonCodecOptions,
} from './json_codec.ts'
export { serializeError, deserializeError, MAX_CAUSE_DEPTH } from './error_serialization.ts'
export { MAX_STACK_CHARS } from './error_shape.ts'
