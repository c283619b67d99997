/**
 * What a claim adds to the counters table (TaskDepth.redelivered): per step key, how many of the
 * tasks it took had been delivered before. Dialects that claim in a transaction read each row's
 * `deliveries` before raising it, so "delivered before" is a count of at least one.
 */
export function repeatedPerStep(
  taken: Iterable<readonly [stepKey: unknown, deliveriesBefore: unknown]>,
): [string, number][] {
  const perStep = new Map<string, number>()
  for (const [stepKey, before] of taken)
    if (Number(before) >= 1) perStep.set(String(stepKey), (perStep.get(String(stepKey)) ?? 0) + 1)
  return [...perStep].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) // one lock order
}
