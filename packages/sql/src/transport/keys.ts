/**
 * Task ids (up to 1,400 characters) and step names (up to 1,000) are longer than an index key
 * may be on MariaDB (3,072 bytes) and Postgres (~2,700): rows are keyed by their SHA-256.
 */
import { createHash } from 'node:crypto'

export function keyOf(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex')
}
