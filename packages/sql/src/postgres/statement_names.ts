/**
 * Names for server-side prepared statements. A named statement is parsed and planned once per
 * connection and then only bound and executed. The name is a hash of the text: two stores
 * on one pool (different schemas) never reuse a name for another text, which node-postgres
 * refuses.
 */
import { createHash } from 'node:crypto'

/** Statement texts are a small set (kinds of wave × schemas); the bound guards odd callers. */
const MAX_ENTRIES = 512

export class StatementNames {
  readonly #names = new Map<string, string>()

  of(text: string): string {
    const known = this.#names.get(text)
    if (known !== undefined) return known
    const name = `cairn_${createHash('sha1').update(text).digest('hex').slice(0, 20)}`
    if (this.#names.size >= MAX_ENTRIES) this.#names.clear()
    this.#names.set(text, name)
    return name
  }
}
