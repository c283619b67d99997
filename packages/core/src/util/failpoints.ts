/**
 * Failpoints for crash tests: named places where a test can make the process die with
 * SIGKILL, exactly where RELIABILITY.md's crash points sit. Off unless the environment
 * variable CAIRN_FAILPOINTS is set, e.g. `P5=0.02,P6=0.02` (probability per hit) or
 * `P3=#5` (the 5th hit). When off, `failpoint()` is one boolean check. With
 * CAIRN_FAILPOINT_LOG set to a file path, the name of a failpoint that fires is appended to
 * it first, so a crash test can prove which crash points it exercised.
 *
 * Armed only when this module runs from its TypeScript source, i.e. inside the repository's
 * workspace: the built package (dist/util/failpoints.js, what npm users install) ignores
 * CAIRN_FAILPOINTS, so no environment variable can make a production process kill itself.
 */
import { appendFileSync } from 'node:fs'

type Rule = { probability: number } | { nth: number; hits: number }

const FROM_SOURCES = import.meta.url.endsWith('.ts')
const rules = parseRules(FROM_SOURCES ? (process.env.CAIRN_FAILPOINTS ?? '') : '')
const enabled = rules.size > 0

function parseRules(spec: string): Map<string, Rule> {
  const map = new Map<string, Rule>()
  for (const part of spec
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [name, value = ''] = part.split('=')
    if (name === undefined || name === '') continue
    map.set(
      name,
      value.startsWith('#')
        ? { nth: Number(value.slice(1)), hits: 0 }
        : { probability: Number(value) },
    )
  }
  return map
}

function shouldFire(rule: Rule): boolean {
  if ('probability' in rule) return Math.random() < rule.probability
  rule.hits += 1
  return rule.hits === rule.nth
}

/** Dies here (SIGKILL, no cleanup, like a power cut for this process) when the rule says so. */
export function failpoint(name: string): void {
  if (!enabled) return
  const rule = rules.get(name)
  if (rule === undefined || !shouldFire(rule)) return
  const log = process.env.CAIRN_FAILPOINT_LOG
  if (log !== undefined && log !== '') appendFileSync(log, `${name}\n`)
  process.kill(process.pid, 'SIGKILL')
}

/** Whether any failpoint is configured (lets hot paths skip building names). */
export function failpointsEnabled(): boolean {
  return enabled
}
