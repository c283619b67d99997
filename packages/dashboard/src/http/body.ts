/**
 * Reading a JSON request body, capped: a body over the limit is refused (413) as soon as it
 * is known to be too large (Content-Length, or while streaming), never buffered whole.
 */
import { badRequest, payloadTooLarge, unsupportedMediaType } from './http_error.ts'

export const MAX_BODY_BYTES = 1024 * 1024

/**
 * The body of a state-changing request as a JSON object: 415 unless it says it is JSON, 400
 * when it is missing, not JSON or not an object, 413 past the cap. A missing body is never
 * read as `{}`: a body a proxy or a framework dropped (a form post, say) must not turn a
 * filtered bulk action into one over every run. Send `{}` when there is nothing to say.
 */
export async function readJsonObject(
  request: Request,
  limit = MAX_BODY_BYTES,
): Promise<Record<string, unknown>> {
  if (!isJsonContentType(request.headers.get('content-type')))
    throw unsupportedMediaType(
      'request body must be JSON (content-type: application/json); send {} when there is nothing to say',
    )
  const text = await readCapped(request, limit)
  if (text.trim() === '')
    throw badRequest(
      'request body is missing: send a JSON object ({} when there is nothing to say)',
    )
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw badRequest('request body is not valid JSON')
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw badRequest('request body must be a JSON object')
  return value as Record<string, unknown>
}

function isJsonContentType(header: string | null): boolean {
  return header !== null && /^application\/json\s*(;|$)/i.test(header.trim())
}

async function readCapped(request: Request, limit: number): Promise<string> {
  const declared = Number(request.headers.get('content-length') ?? NaN)
  if (declared > limit) throw payloadTooLarge(limit)
  if (request.body === null) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  const reader = request.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > limit) {
      await reader.cancel().catch(() => undefined)
      throw payloadTooLarge(limit)
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}
