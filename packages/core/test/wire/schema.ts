/**
 * The wire format's JSON Schema (`@cairn/core/wire-schema/v1.json`, reached through the package's
 * export as a user reaches it), compiled by Ajv.
 *
 * Why Ajv: it is the reference validator for JSON Schema in JavaScript (draft 2020-12 through
 * `ajv/dist/2020`), so the tests check the schema as a worker in another language would read
 * it, with a validator that is not ours. A root dev dependency only: nothing published loads it.
 *
 * Strict mode is on, so a keyword Ajv does not know fails the compile rather than being
 * ignored. String lengths: Ajv counts `minLength`/`maxLength` in Unicode code points (as the
 * spec says), which is how the parser counts too; `lengthCountsCodePoints` below pins it.
 * Patterns are compiled with the `u` flag (`unicodeRegExp`, Ajv's default, set here explicitly).
 */
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

export const SCHEMA_PATH = createRequire(import.meta.url).resolve('@cairn/core/wire-schema/v1.json')
export const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Record<string, unknown>

export const ajv = new Ajv2020({ strict: true, unicodeRegExp: true, allErrors: false })
export const validate: ValidateFunction = ajv.compile(schema)

/** What Ajv says of a JSON value: true when the schema accepts it. */
export function schemaAccepts(value: unknown): boolean {
  return validate(value)
}

/** Ajv's own check that `maxLength` counts code points: 3 astral characters fit in 3. */
export function lengthCountsCodePoints(): boolean {
  const check = ajv.compile({ type: 'string', maxLength: 3 })
  return check('😀😀😀') && !check('😀😀😀😀')
}
