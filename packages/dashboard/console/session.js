// The console's session: whether the server wants a login (token mode), and the CSRF token
// for state-changing calls. The session cookie itself is HttpOnly; the page never sees it.
import { del, get, post, setCsrfToken } from './api.js'

let current = { authenticated: false, mode: 'open', csrfToken: '' }

/** Asks the server who we are (GET /api/session) and keeps the CSRF token. */
export async function refreshSession() {
  current = await get('session')
  setCsrfToken(current.csrfToken)
  return current
}

/** The last known session. */
export function session() {
  return current
}

/** False on a read-only dashboard: the console then offers no action (the server refuses them anyway). */
export function actionsAllowed() {
  return current.readOnly !== true
}

/** Said where the action buttons would be on a read-only dashboard. */
export const READ_ONLY_NOTE = 'Read-only dashboard: actions are turned off.'

/** Logs in with an API token (POST /api/session), then reloads the session. */
export async function login(token) {
  await post('session', { token })
  return refreshSession()
}

/**
 * A token handed over in the address (`?token=…`, as `cairn dashboard` prints it): taken out of
 * the address bar and this history entry first, then used to sign in. A wrong one only means
 * the login page asks for a token.
 */
export async function loginFromAddress() {
  const params = new URLSearchParams(location.search)
  const token = params.get('token')
  if (token === null) return
  params.delete('token')
  const search = params.toString()
  const address = `${location.pathname}${search === '' ? '' : `?${search}`}${location.hash}`
  history.replaceState(history.state, '', address)
  try {
    await post('session', { token })
  } catch {
    // Refused: the session stays anonymous and the router sends the user to the login page.
  }
}

/** Logs out (DELETE /api/session). */
export async function logout() {
  await del('session')
  current = { ...current, authenticated: false, csrfToken: '' }
  setCsrfToken('')
}
