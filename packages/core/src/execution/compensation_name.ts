/**
 * A saga's compensation is recorded as a local step named after the step it undoes. The name
 * is how a history says the run unwound (a requeue refuses such a run: its work was undone).
 */
const COMPENSATION_PREFIX = 'compensate:'

export function compensationStepName(stepName: string): string {
  return `${COMPENSATION_PREFIX}${stepName}`
}

export function isCompensationStep(record: { kind: string; name: string }): boolean {
  return record.kind === 'local' && record.name.startsWith(COMPENSATION_PREFIX)
}
