/** Numeric query parameters: integers, clamped into their range; garbage is a 400. */
import { badRequest } from '../http/http_error.ts'
import { clampInt } from '../options.ts'

export function intParam(
  raw: string | undefined | null,
  name: string,
  range: { min: number; max: number; fallback: number },
): number {
  if (raw === undefined || raw === null || raw === '') return range.fallback
  if (!/^-?\d{1,15}$/.test(raw)) throw badRequest(`${name} must be an integer`)
  return clampInt(Number(raw), range.min, range.max)
}
