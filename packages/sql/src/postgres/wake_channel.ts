/**
 * The LISTEN/NOTIFY channel of a schema's wake-ups. The schema is in the name, so stores in
 * different schemas of one database (one per test, one per tenant) never wake each other.
 * Channel names are identifiers, at most 63 bytes: a longer name is replaced by a hash.
 */
import { createHash } from 'node:crypto'

const MAX_IDENTIFIER_BYTES = 63

export function wakeChannel(schema: string): string {
  const readable = `cairn_wake_${schema}`
  if (Buffer.byteLength(readable) <= MAX_IDENTIFIER_BYTES) return readable
  return `cairn_wake_${createHash('sha256').update(schema).digest('hex').slice(0, 40)}`
}
