/**
 * Turning a thrown value into the response: known errors become `{ error: { code, message } }`
 * with their status; anything else is a 500 E_INTERNAL with a generic message, and the
 * logger gets the error's name, code and stack frames, never its message (which may quote
 * a payload) and never the request body.
 */
import type { Logger } from '@cairn/core'
import { DashboardCodes, HttpError, toHttpError } from './http_error.ts'
import { errorResponse } from './responses.ts'

export function respondToError(
  error: unknown,
  logger: Logger,
  where: { method: string; route: string },
): Response {
  const known = toHttpError(error)
  if (known !== null) return errorResponse(known)
  logger.error(
    { ...where, ...describe(error) },
    'cairn dashboard: request failed with an unexpected error',
  )
  return errorResponse(new HttpError(500, DashboardCodes.INTERNAL, 'internal error'))
}

function describe(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { errorType: typeof error }
  const code = (error as { code?: unknown }).code
  return {
    errorName: error.name,
    code: typeof code === 'string' ? code : undefined,
    // Frames only: the stack's first line repeats the message.
    frames: (error.stack ?? '')
      .split('\n')
      .filter((line) => /^\s+at /.test(line))
      .join('\n'),
  }
}
