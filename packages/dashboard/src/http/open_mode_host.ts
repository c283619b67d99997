/**
 * DNS rebinding guard for an open dashboard (development mode, no auth). A page on
 * `attacker.example` whose name the attacker re-points at 127.0.0.1 reaches a loopback-only
 * server as "same origin" — its own origin is what the browser compares — and could read runs
 * and act on them. What it cannot change is the name it asked for: the Host the request
 * carries. So an open dashboard answers only requests addressed to this machine by a loopback
 * name: `localhost` (and `*.localhost`, which browsers resolve to loopback themselves), an
 * address in 127.0.0.0/8, or `[::1]`. Anything else is 421 `E_HOST_NOT_ALLOWED`, before any
 * route — the console page included. A dashboard with tokens or `authorize` is reached by any
 * name: it authenticates every request.
 */
import { isIP } from 'node:net'
import { HttpError } from './http_error.ts'

export function isLoopbackName(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost' || name.endsWith('.localhost')) return true
  if (name === '[::1]') return true
  return isIP(name) === 4 && name.startsWith('127.')
}

/** Null when the request's host name (from its URL, built from the Host header) may be served. */
export function openModeHostError(request: Request): HttpError | null {
  if (isLoopbackName(new URL(request.url).hostname)) return null
  return new HttpError(
    421,
    'E_HOST_NOT_ALLOWED',
    'this dashboard is open (development mode, no auth), so it answers only on localhost or a loopback address; configure auth tokens or authorize to reach it by another name',
  )
}
