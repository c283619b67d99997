/**
 * HMAC-SHA256 signing of small values (session cookies, list cursors, CSRF tokens) under the
 * dashboard's secret. Each use has its own purpose label, so a value signed for one use
 * (a cursor) never verifies as another (a session).
 */
import { createHmac, timingSafeEqual } from 'node:crypto'

export type Purpose = 'session' | 'cursor' | 'csrf' | 'token'

export function mac(secret: string, purpose: Purpose, value: string): string {
  return createHmac('sha256', secret).update(`${purpose}\0${value}`).digest('base64url')
}

/** `<base64url payload>.<mac>` */
export function sign(secret: string, purpose: Purpose, payload: unknown): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url')
  return `${body}.${mac(secret, purpose, body)}`
}

/** The payload of a value `sign` produced with this secret and purpose, else undefined. */
export function unsign(secret: string, purpose: Purpose, signed: string): unknown {
  const dot = signed.indexOf('.')
  if (dot <= 0) return undefined
  const body = signed.slice(0, dot)
  if (!equalStrings(signed.slice(dot + 1), mac(secret, purpose, body))) return undefined
  try {
    return JSON.parse(Buffer.from(body, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
}

/** Constant-time comparison (the length may leak; the content does not). */
export function equalStrings(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
