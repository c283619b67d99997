/**
 * The golden fixtures (test/wire/fixtures/): what a worker in another language can test its
 * reader and writer against. Every valid/*.json parses to exactly its JSON and is valid under
 * the JSON Schema; every invalid/*.json is refused with the code and path invalid/expectations.json
 * names, and is invalid under the schema too — except the fixtures marked `schema: "accepts"`:
 * lone surrogates, the one rule the schema cannot state (docs/wire.md).
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { parseWireMessage, parseTaskId } from '@cairn/core/wire'
import { lengthCountsCodePoints, schemaAccepts, validate } from './schema.ts'

const FIXTURES = new URL('./fixtures/', import.meta.url)

function files(dir: 'valid' | 'invalid'): string[] {
  return readdirSync(new URL(`${dir}/`, FIXTURES))
    .filter((f) => f.endsWith('.json') && f !== 'expectations.json')
    .sort()
}

function read(dir: 'valid' | 'invalid', file: string): string {
  return readFileSync(new URL(`${dir}/${file}`, FIXTURES), 'utf8')
}

interface Expectation {
  code: 'E_WIRE_INVALID' | 'E_WIRE_VERSION'
  path: string
  /** "accepts": the schema cannot state the rule broken; `why` says which. */
  schema?: 'accepts'
  why?: string
}

const expectations = JSON.parse(read('invalid', 'expectations.json')) as Record<string, Expectation>

void test('Ajv counts string lengths in code points, as the parser does', () => {
  assert.equal(lengthCountsCodePoints(), true)
})

void describe('valid fixtures', () => {
  const valid = files('valid')
  void test('there is one of each message kind the format documents', () => {
    for (const name of [
      'task-full.json',
      'task-minimal.json',
      'task-no-timeout.json',
      'result-completed.json',
      'result-failed.json',
      'heartbeat.json',
      'heartbeat-progress.json',
      'announce-fixed.json',
      'announce-adaptive.json',
      'announce-leaving.json',
    ])
      assert.ok(valid.includes(name), name)
  })

  for (const file of valid) {
    void test(file, () => {
      const text = read('valid', file)
      const json = JSON.parse(text) as Record<string, unknown>
      const parsed = parseWireMessage(text)
      assert.ok(parsed.ok, `refused: ${JSON.stringify(!parsed.ok && parsed.refusal)}`)
      assert.deepEqual(parsed.message, json)
      assert.ok(validate(json), JSON.stringify(validate.errors))
      // Bytes read the same as text.
      assert.deepEqual(parseWireMessage(new TextEncoder().encode(text)), parsed)
      // The task id names the attempt the message is about.
      assert.deepEqual(
        parseTaskId(json.taskId as string) ?? undefined,
        json.taskId === undefined
          ? undefined
          : { runId: json.runId, seq: json.seq, attempt: json.attempt },
      )
    })
  }
})

void describe('invalid fixtures', () => {
  const invalid = files('invalid')
  void test('every fixture has an expectation, and every expectation a fixture', () => {
    assert.deepEqual(invalid, Object.keys(expectations).sort())
  })

  for (const file of invalid) {
    void test(file, () => {
      const text = read('invalid', file)
      const expected = expectations[file]
      assert.ok(expected, `no expectation for ${file}`)
      const parsed = parseWireMessage(text)
      assert.equal(parsed.ok, false)
      assert.ok(!parsed.ok)
      assert.equal(parsed.refusal.code, expected.code)
      assert.equal(parsed.refusal.path, expected.path)
      assert.ok(parsed.refusal.reason.length > 0)
      const json = JSON.parse(text) as unknown
      if (expected.schema === 'accepts') {
        // Documented: the schema cannot say it, the parser refuses it.
        assert.ok(expected.why, `${file}: say why the schema accepts it`)
        assert.equal(schemaAccepts(json), true)
      } else {
        assert.equal(schemaAccepts(json), false, `${file}: the schema accepts it`)
      }
    })
  }
})
