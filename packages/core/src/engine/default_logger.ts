/**
 * The default logger: warnings and errors to stderr as one JSON line each, nothing else.
 * Pass your own (pino, the AdonisJS logger) to route or see more.
 */
import type { Logger } from '../contracts/logger.ts'

const ignore = (): void => {}

function line(level: string) {
  return (obj: Record<string, unknown>, msg: string): void => {
    const fields = Object.fromEntries(
      Object.entries(obj).map(([k, v]) => [k, v instanceof Error ? v.message : v]),
    )
    process.stderr.write(`${JSON.stringify({ level, msg, ...fields })}\n`)
  }
}

export const defaultLogger: Logger = {
  debug: ignore,
  info: ignore,
  warn: line('warn'),
  error: line('error'),
}

/** A logger that drops everything (tests, benchmarks). */
export const silentLogger: Logger = { debug: ignore, info: ignore, warn: ignore, error: ignore }
