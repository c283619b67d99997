/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4) for tests: every
 * line must be a `# HELP`, a `# TYPE` or a sample of a declared metric family, label values
 * are unescaped, and the same series twice is an error. Samples are looked up exactly.
 */
import assert from 'node:assert/strict'

export interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

export interface Exposition {
  types: Map<string, string>
  samples: Sample[]
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /^([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(,|$)/

export function parseExposition(text: string): Exposition {
  const types = new Map<string, string>()
  const samples: Sample[] = []
  const seen = new Set<string>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ')) continue
    if (line.startsWith('# TYPE ')) {
      const [name, type] = line.slice(7).split(' ')
      types.set(name as string, type as string)
      continue
    }
    const match = SAMPLE.exec(line)
    assert.ok(match, `not a sample line: ${JSON.stringify(line)}`)
    const [, name, labelText, valueText] = match as unknown as [string, string, string, string]
    assert.ok(types.has(familyOf(name, types)), `sample of an undeclared family: ${line}`)
    const labels = parseLabels(labelText ?? '')
    const key = `${name}${JSON.stringify(Object.entries(labels).sort())}`
    assert.ok(!seen.has(key), `series repeated: ${line}`)
    seen.add(key)
    samples.push({ name, labels, value: parseValue(valueText) })
  }
  return { types, samples }
}

/** The value of the one sample of `name` with exactly these labels, or undefined. */
export function valueOf(
  exposition: Exposition,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort())
  const found = exposition.samples.filter(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted,
  )
  return found[0]?.value
}

/** Every sample of `name`. */
export function samplesOf(exposition: Exposition, name: string): Sample[] {
  return exposition.samples.filter((s) => s.name === name)
}

function familyOf(name: string, types: Map<string, string>): string {
  if (types.has(name)) return name
  for (const suffix of ['_bucket', '_sum', '_count']) {
    const base = name.endsWith(suffix) ? name.slice(0, -suffix.length) : null
    if (base !== null && types.get(base) === 'histogram') return base
  }
  return name
}

function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {}
  let rest = text
  while (rest !== '') {
    const match = LABEL.exec(rest)
    assert.ok(match, `malformed labels: ${text}`)
    const [all, name, raw] = match as unknown as [string, string, string]
    labels[name] = raw.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c))
    rest = rest.slice(all.length)
  }
  return labels
}

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity
  if (text === '-Inf') return -Infinity
  const value = Number(text)
  assert.ok(text === 'NaN' || !Number.isNaN(value), `not a sample value: ${text}`)
  return value
}
