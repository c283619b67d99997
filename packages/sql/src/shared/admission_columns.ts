/** RunRecord.admission ↔ the run's `admission_scope` and `admission_key` columns (migration 12). */

export function toAdmission(scope: unknown, key: unknown): { scope: string; key: string } | null {
  return typeof scope === 'string' && typeof key === 'string' ? { scope, key } : null
}

/** The two column values a create writes. */
export function admissionValues(op: {
  admission?: { scope: string; key: string }
}): [string | null, string | null] {
  return op.admission === undefined ? [null, null] : [op.admission.scope, op.admission.key]
}
