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

void test('shapes WHATWG URL misreads: an @ in the user, / # ? @ unencoded in the password', () => {
  for (const [url, shown, password] of [
    ['postgres://user@corp:s3cret@db/cairn', 'postgres://user@corp:***@db/cairn', 's3cret'],
    ['postgres://app:pa/ss@db/cairn', 'postgres://app:***@db/cairn', 'pa/ss'],
    ['mysql://app:pa#ss@db/cairn', 'mysql://app:***@db/cairn', 'pa#ss'],
    ['mysql://app:pa?ss@db:3306/cairn', 'mysql://app:***@db:3306/cairn', 'pa?ss'],
    ['postgres://app:12/ss@db/cairn', 'postgres://app:***@db/cairn', '12/ss'],
    ['postgres://a@b:c/d#e?f@g@db/cairn', 'postgres://a@b:***@db/cairn', 'c/d#e?f@g'],
  ] as const) {
    assert.equal(redactUrl(url), shown, url)
    assert.ok(!redactUrl(url).includes(password), url)
    assert.ok(secretsOf(url).includes(password), url)
    const said = scrub(`connect failed for ${url} (password ${password})`, secretsOf(url))
    assert.ok(!said.includes(password), said)
  }
})
