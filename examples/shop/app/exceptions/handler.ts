/**
 * Every error becomes JSON: `{ errors: [{ code, message }] }`, or Vine's
 * `{ errors: [{ field, rule, message }] }` for invalid input (422). A body that is not JSON is
 * invalid input too (422, E_INVALID_JSON). A 5xx never shows its message or stack to the
 * client (it is logged instead).
 */
import { ExceptionHandler, type HttpContext } from '@adonisjs/core/http'

interface HttpError {
  status: number
  code?: string
  message: string
}

export default class HttpExceptionHandler extends ExceptionHandler {
  protected override debug = false

  override async handle(error: unknown, ctx: HttpContext) {
    return super.handle(asInvalidJson(error) ?? error, ctx)
  }

  override async renderErrorAsJSON(error: HttpError, ctx: HttpContext) {
    const hidden = error.status >= 500
    ctx.response.status(error.status).send({
      errors: [
        {
          code: error.code ?? (hidden ? 'E_INTERNAL' : 'E_BAD_REQUEST'),
          message: hidden ? 'Internal server error' : error.message,
        },
      ],
    })
  }
}

/** The body parser throws JSON.parse's SyntaxError (status 400) for a body that is not JSON. */
function asInvalidJson(error: unknown): HttpError | null {
  if (!(error instanceof SyntaxError) || (error as Partial<HttpError>).status !== 400) return null
  return { status: 422, code: 'E_INVALID_JSON', message: `Invalid JSON body: ${error.message}` }
}
