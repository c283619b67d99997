/**
 * Bound values collected while a statement's text is written, so each placeholder is added
 * where its value is used and text and values cannot drift apart.
 */
import type { SqlDialect } from './dialect.ts'
import type { SqlStatement } from './driver.ts'

export class Params {
  readonly values: unknown[] = []
  readonly #dialect: SqlDialect

  constructor(dialect: SqlDialect) {
    this.#dialect = dialect
  }

  /** Binds `value`; returns its placeholder (cast to `type` where the dialect needs it). */
  add(value: unknown, type?: string): string {
    this.values.push(value)
    return this.#dialect.placeholder(this.values.length, type)
  }

  statement(text: string, writes = false): SqlStatement {
    return writes ? { text, values: this.values, writes } : { text, values: this.values }
  }
}
