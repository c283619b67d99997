/**
 * Errors the dashboard answers with: an HTTP status and a stable `E_*` code. Engine errors
 * (CairnError) are mapped by code; anything else is a 500 E_INTERNAL whose details only the
 * logger sees.
 */
import { CairnError } from '@cairn/core'

/** Codes the dashboard adds to the engine's (packages/core/src/errors/codes.ts). */
export const DashboardCodes = {
  UNAUTHORIZED: 'E_UNAUTHORIZED',
  FORBIDDEN: 'E_FORBIDDEN',
  CSRF: 'E_CSRF',
  NOT_FOUND: 'E_NOT_FOUND',
  INTERNAL: 'E_INTERNAL',
} as const

export class HttpError extends Error {
  readonly status: number
  readonly code: string

  constructor(status: number, code: string, message: string) {
    super(message)
    this.name = 'HttpError'
    this.status = status
    this.code = code
  }
}

export const badRequest = (message: string): HttpError =>
  new HttpError(400, 'E_INVALID_ARGUMENT', message)
export const invalidCursor = (): HttpError =>
  new HttpError(400, 'E_INVALID_CURSOR', 'cursor is not one this dashboard issued for this filter')
export const unauthorized = (): HttpError =>
  new HttpError(401, DashboardCodes.UNAUTHORIZED, 'authentication required')
export const forbidden = (message: string): HttpError =>
  new HttpError(403, DashboardCodes.FORBIDDEN, message)
export const csrfRefused = (message: string): HttpError =>
  new HttpError(403, DashboardCodes.CSRF, message)
export const notFound = (message = 'no such route'): HttpError =>
  new HttpError(404, DashboardCodes.NOT_FOUND, message)
export const unsupportedMediaType = (message: string): HttpError =>
  new HttpError(415, 'E_UNSUPPORTED_MEDIA_TYPE', message)
export const payloadTooLarge = (limit: number): HttpError =>
  new HttpError(413, 'E_PAYLOAD_TOO_LARGE', `request body is larger than ${limit} bytes`)

/** HTTP status of each engine error code a request can cause; others are internal errors. */
const STATUS_OF_ENGINE_CODE: Readonly<Record<string, number>> = {
  E_INVALID_ARGUMENT: 400,
  E_INVALID_CURSOR: 400,
  E_NOT_SERIALIZABLE: 400,
  E_WORKFLOW_NOT_REGISTERED: 400,
  E_RUN_NOT_FOUND: 404,
  E_WEBHOOK_NOT_FOUND: 404,
  E_SCHEDULE_NOT_FOUND: 404,
  E_RUN_NOT_REQUEUEABLE: 409,
  E_RUN_NOT_DELETABLE: 409,
  E_RUN_TERMINAL: 409,
  E_NOT_AT_BREAKPOINT: 409,
  E_RUN_ID_CONFLICT: 409,
  E_PAYLOAD_TOO_LARGE: 413,
}

/** The HttpError a thrown value answers as, or null when it is an internal error. */
export function toHttpError(error: unknown): HttpError | null {
  if (error instanceof HttpError) return error
  if (!CairnError.isCairnError(error)) return null
  const status = STATUS_OF_ENGINE_CODE[error.code]
  return status === undefined ? null : new HttpError(status, error.code, error.message)
}
