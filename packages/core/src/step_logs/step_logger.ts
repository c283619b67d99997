/** `stepCtx.log`: a StepLogger handing each line to `write` (a buffer, a span, both). */
import type { StepLogLevel } from '../contracts/step_logs.ts'
import type { StepLogger } from '../execution/types.ts'

export type StepLineWriter = (level: StepLogLevel, message: unknown, fields: unknown) => void

export function stepLogger(write: StepLineWriter): StepLogger {
  return {
    info: (message, fields) => write('info', message, fields),
    warn: (message, fields) => write('warn', message, fields),
    error: (message, fields) => write('error', message, fields),
  }
}
