// The JSON API client. Every call goes to <base>/api/..., where <base> is the directory that
// serves this module's parent (assets live at <base>/assets/), so the console works under any
// mount path without configuration. State-changing calls carry the session's CSRF token.

const base = new URL('../', import.meta.url)
const STATE_CHANGING = new Set(['POST', 'PUT', 'PATCH', 'DELETE'])
let csrfToken = ''

/** An error answer from the API: `code` is the stable E_* code. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code
  }
}

/** Remembers the CSRF token that state-changing calls send in `x-cairn-csrf`. */
export function setCsrfToken(token) {
  csrfToken = typeof token === 'string' ? token : ''
}

/** Absolute URL of an API path (`runs`, `runs/abc/steps`) with query parameters. */
export function apiUrl(path, params) {
  const url = new URL(`api/${path}`, base)
  if (params) url.search = params.toString()
  return url
}

/** GET → parsed JSON; throws ApiError on an error answer. */
export function get(path, params, options = {}) {
  return request('GET', path, { params, signal: options.signal })
}

/** POST `body` as JSON → parsed JSON; throws ApiError on an error answer. */
export function post(path, body) {
  return request('POST', path, { body })
}

/** DELETE → parsed JSON. */
export function del(path) {
  return request('DELETE', path, {})
}

async function request(method, path, { params, body, signal }) {
  const headers = { accept: 'application/json' }
  if (body !== undefined) headers['content-type'] = 'application/json'
  if (STATE_CHANGING.has(method) && csrfToken !== '') headers['x-cairn-csrf'] = csrfToken
  const response = await fetch(apiUrl(path, params), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin',
    signal,
  })
  const payload = await readJson(response)
  if (response.ok) return payload
  throw toApiError(response.status, payload)
}

async function readJson(response) {
  const text = await response.text()
  if (text === '') return {}
  try {
    return JSON.parse(text)
  } catch {
    return { error: { code: 'E_BAD_RESPONSE', message: `HTTP ${response.status}` } }
  }
}

function toApiError(status, payload) {
  const error = payload?.error ?? {}
  const code = typeof error.code === 'string' ? error.code : `HTTP_${status}`
  const message = typeof error.message === 'string' ? error.message : `HTTP ${status}`
  if (status === 401) window.dispatchEvent(new CustomEvent('cairn:unauthorized'))
  return new ApiError(status, code, message)
}
