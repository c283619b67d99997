/**
 * How a run's `wake_on` column holds SuspendRunOp.wakeOn: ` name name ` — every name between
 * single spaces, so a delivery matches its name as the word ` <name> ` (instr, strpos, INSTR)
 * with no JSON support needed. Message names are printable text without spaces (the engine
 * checks them); a name with a space could at worst match falsely, waking the run for nothing,
 * never missing a wake. NULL: any message wakes the run.
 */
export function wakeOnText(names: readonly string[] | null | undefined): string | null {
  if (names === null || names === undefined) return null
  return ` ${names.join(' ')} `
}
