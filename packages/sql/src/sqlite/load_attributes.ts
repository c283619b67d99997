/** loadSearchAttributes: one statement for all the ids, through the attribute primary key. */
import { checkRunIdList, fromTypedValue } from '@cairn/core/store-kit'
import type { SearchAttributes } from '@cairn/core/contracts'
import type { Statements } from './statements.ts'

type AttributeRow = [
  runId: string,
  name: string,
  type: string,
  text: string | null,
  number: number | null,
]

export function loadSearchAttributes(
  s: Statements,
  runIds: readonly string[],
): Map<string, SearchAttributes> {
  checkRunIdList(runIds)
  const found = new Map<string, SearchAttributes>()
  if (runIds.length === 0) return found
  const rows = s.loadAttributes.all(JSON.stringify(runIds)) as unknown as AttributeRow[]
  for (const [runId, name, type, text, number] of rows) {
    const attributes = found.get(runId) ?? {}
    attributes[name] = fromTypedValue(type, text, number)
    found.set(runId, attributes)
  }
  return found
}
