/**
 * Minimal structured logger the engine writes to; pino, the AdonisJS logger and `console`
 * all fit. Types only. Payloads (inputs, outputs) are never passed to a logger.
 */
export interface Logger {
  debug(obj: Record<string, unknown>, msg: string): void
  info(obj: Record<string, unknown>, msg: string): void
  warn(obj: Record<string, unknown>, msg: string): void
  error(obj: Record<string, unknown>, msg: string): void
}
