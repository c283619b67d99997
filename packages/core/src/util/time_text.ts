/** Time for operators (waitingOn labels): ISO text, or milliseconds where no Date can hold it. */
import { MAX_TIME_MS } from './numbers.ts'

export function timeText(ms: number): string {
  return Math.abs(ms) <= MAX_TIME_MS ? new Date(ms).toISOString() : `${ms} ms`
}
