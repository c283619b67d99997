/** A default worker id: host, pid and a random part, so two processes never share one. */
import { randomBytes } from 'node:crypto'
import { hostname } from 'node:os'

export function defaultWorkerId(): string {
  return `${hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`
}
