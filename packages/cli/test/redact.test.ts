/** The two layers that keep store passwords out of the CLI's output, each on its own. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redactUrl, scrub, secretsOf } from '../src/store/redact.ts'

void test('redactUrl masks the password and keeps the rest, even in a URL WHATWG rejects', () => {
  assert.equal(
    redactUrl('postgres://app:s3cret@db:5432/cairn?schema=x'),
    'postgres://app:***@db:5432/cairn?schema=x',
  )
  assert.equal(redactUrl('mysql://app:p%40ss@db/cairn'), 'mysql://app:***@db/cairn')
  assert.equal(redactUrl('postgres://app:p@ss@db/cairn'), 'postgres://app:***@db/cairn')
  assert.equal(redactUrl('postgres://app:s3cret@/cairn'), 'postgres://app:***@/cairn')
  assert.equal(redactUrl('postgres://app@db/cairn'), 'postgres://app@db/cairn')
  assert.equal(redactUrl('/var/lib/cairn.db'), '/var/lib/cairn.db')
})

void test('scrub removes the password as written and decoded from any text', () => {
  const url = 'mysql://app:p%40ss@db/cairn'
  const secrets = secretsOf(url)
  assert.equal(
    scrub(`Access denied for app (using password p@ss) at ${url}; raw p%40ss`, secrets),
    'Access denied for app (using password ***) at mysql://app:***@db/cairn; raw ***',
  )
  assert.deepEqual(secretsOf('postgres://app@db/cairn'), [])
  assert.deepEqual(secretsOf(undefined), [])
})
