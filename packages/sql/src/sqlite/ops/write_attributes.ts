import { toTypedValue } from '@cairn/core/store-kit'
import type { SearchAttributeUpsert } from '@cairn/core/contracts'
import type { Statements } from '../statements.ts'

/** A checkpoint's search attributes: call only once the checkpoint was written, same transaction. */
export function writeAttributes(s: Statements, runId: string, upsert: SearchAttributeUpsert): void {
  for (const [name, value] of Object.entries(upsert)) {
    if (value === null) {
      s.deleteAttribute.run(runId, name)
      continue
    }
    const typed = toTypedValue(value)
    s.upsertAttribute.run(name, typed.type, typed.text, typed.number, runId)
  }
}
