/**
 * The config/durable.ts fields that reach the codec, the webhook route and the transports, and
 * keys Cairn does not take: each is checked when the config loads, refused with E_INVALID_ARGUMENT naming the
 * field, and a key of @adonis-agora/durable's config says it is not in Cairn yet.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createCodec, type Codec } from '@cairn/core'
import { defineConfig, stores, transports, validateConfig } from '@cairn/adonis'

const sqlite = stores.sqlite({ path: 'x.sqlite' })
const base = { store: 'sqlite' as const, stores: { sqlite } }

/** Asserts the config is refused with E_INVALID_ARGUMENT and a message matching `message`. */
function refused(extra: Record<string, unknown>, message: RegExp, field?: string): void {
  assert.throws(
    () => validateConfig({ ...base, ...extra }),
    (error: Error & { code?: string; details?: { field?: string } }) => {
      assert.equal(error.code, 'E_INVALID_ARGUMENT')
      assert.match(error.message, message)
      if (field !== undefined) assert.equal(error.details?.field, field)
      return true
    },
  )
}

const reversing = {
  encode: (text: string) => [...text].reverse().join(''),
  decode: (text: string) => [...text].reverse().join(''),
}

void describe('config/durable.ts: unknown keys', () => {
  void test('an unknown key is refused, naming it', () => {
    refused({ leasMs: 5 }, /^Invalid config\/durable.ts: "leasMs" is not a known option$/, 'leasMs')
  })

  void test('a key of @adonis-agora/durable says it is not in Cairn yet', () => {
    for (const key of ['eventBufferTtl', 'role', 'capabilities', 'worker']) {
      refused(
        { [key]: {} },
        new RegExp(`"${key}" is an @adonis-agora/durable option \\(.+\\) that is not in Cairn yet`),
        key,
      )
    }
  })

  void test('prototype names are plain unknown keys', () => {
    const config = JSON.parse('{"__proto__": 1, "store": "sqlite"}') as Record<string, unknown>
    assert.throws(
      () => validateConfig({ ...config, stores: { sqlite } }),
      /"__proto__" is not a known option$/,
    )
    refused({ constructor: 1 }, /"constructor" is not a known option$/)
  })

  void test('TypeScript refuses an unknown key at compile time too', () => {
    assert.throws(() =>
      defineConfig({
        store: 'sqlite',
        stores: { sqlite },
        // @ts-expect-error -- not an option of DurableConfig: a compile error as well
        schedules: { nightly: { cron: '0 3 * * *' } },
      }),
    )
  })
})

void describe('config/durable.ts: queues', () => {
  void test('queues are checked where written and passed on as given', () => {
    const queues = { carrier: { concurrency: 4 } }
    assert.deepEqual(validateConfig({ ...base, queues }).queues, queues)
    assert.deepEqual(validateConfig(base).queues, {}, 'none: an empty map')
    refused(
      { queues: { carrier: { concurrency: 0 } } },
      /"queues" queue "carrier": concurrency must be an integer/,
    )
    const rated = { payments: { concurrency: 4, rateLimit: { limit: 5, periodMs: 1000 } } }
    assert.deepEqual(validateConfig({ ...base, queues: rated }).queues, rated, 'a rate is kept')
    refused({ queues: { carrier: { concurrency: 1, rateLimit: {} } } }, /rateLimit\.limit/)
    refused(
      { queues: { carrier: { concurrency: 1, rateLimit: { limit: 5, periodMs: 0 } } } },
      /rateLimit\.periodMs is an integer/,
    )
    refused(
      { queues: { carrier: { concurrency: 1, rateLimit: { limit: 5, periodMs: 1, burst: 2 } } } },
      /rateLimit has no "burst"/,
    )
    const fair = {
      carrier: { concurrency: 2, fairness: 'tenant' },
      payments: { concurrency: 1, fairness: (input: unknown) => String(input) },
    }
    assert.equal(validateConfig({ ...base, queues: fair }).queues, fair, 'a fairness is kept')
    refused({ queues: { carrier: { concurrency: 1, fairness: '' } } }, /fairness is the name/)
    refused({ queues: { carrier: { concurrency: 1, fairness: 7 } } }, /fairness is the name/)
    refused({ queues: { '': { concurrency: 1 } } }, /queue name/)
    refused({ queues: [] }, /queues must be a plain object/)
    refused({ queues: new Map() }, /queues must be a plain object/)
  })
})

void describe('config/durable.ts: retention', () => {
  void test('policies are checked where written and passed on as given', () => {
    const retention = {
      policies: [
        { statuses: ['completed' as const], maxAge: '7 days' },
        { workflow: 'sync', statuses: ['failed' as const, 'dead' as const], maxCount: 1000 },
      ],
      interval: '5m',
    }
    assert.equal(validateConfig({ ...base, retention }).retention, retention)
    assert.equal(validateConfig(base).retention, undefined, 'none: runs are kept')
    refused({ retention: { policies: [{ statuses: ['completed'] }] } }, /needs maxAge, maxCount/)
    refused(
      { retention: { policies: [{ statuses: ['running'], maxAge: '1d' }] } },
      /"running" is not a terminal status/,
    )
    refused(
      { retention: { policies: [{ statuses: ['failed'], maxAge: 'later' }] } },
      /not a duration/,
    )
    refused({ retention: { policies: [], keep: 1 } }, /retention: unknown option "keep"/)
  })
})

void describe('config/durable.ts: stepLogs', () => {
  void test('checked where written and passed on as given', () => {
    const stepLogs = { maxEntries: 50, flushIntervalMs: 250 }
    assert.equal(validateConfig({ ...base, stepLogs }).stepLogs, stepLogs)
    assert.equal(validateConfig(base).stepLogs, undefined, 'none: the engine defaults')
    refused({ stepLogs: { maxEntries: 0 } }, /stepLogs.maxEntries must be an integer 1..1000/)
    refused({ stepLogs: { flushIntervalMs: 10 } }, /stepLogs.flushIntervalMs must be an integer/)
    refused({ stepLogs: { keep: 1 } }, /unknown option "keep"/)
  })
})

void describe('config/durable.ts: codec', () => {
  void test('createCodec options become the engine codec, the transform included', () => {
    const config = validateConfig({ ...base, codec: { maxBytes: 1000, transform: reversing } })
    const codec = config.codec as Codec & { maxBytes: number }
    assert.equal(codec.maxBytes, 1000)
    assert.equal(codec.encode({ a: 1 }), '}1:"a"{')
    assert.deepEqual(codec.decode('}1:"a"{'), { a: 1 })
  })

  void test('a codec of the app is used as it is; none leaves core the default', () => {
    const own = createCodec()
    assert.equal(validateConfig({ ...base, codec: own }).codec, own)
    assert.equal(validateConfig(base).codec, undefined)
  })

  void test('bad codec settings are refused at load, naming the field', () => {
    refused({ codec: 'aes' }, /"codec" must be a codec/, 'codec')
    refused(
      { codec: { maxBytes: 0 } },
      /"codec.maxBytes" .*maxBytes must be an integer/,
      'codec.maxBytes',
    )
    refused({ codec: { maxDepth: 5000 } }, /"codec.maxDepth"/, 'codec.maxDepth')
    refused({ codec: { transform: { encode: String } } }, /"codec.transform" .*encode and decode/)
    refused({ codec: { encode: (v: unknown) => String(v) } }, /"codec" is a codec only with both/)
    refused(
      { codec: { compress: true } },
      /"codec.compress" is not a known option/,
      'codec.compress',
    )
  })

  void test('a transform that throws or does not round-trip fails the load, not the first run', () => {
    const throwing = {
      encode: () => {
        throw new RangeError('Invalid key length')
      },
      decode: String,
    }
    refused(
      { codec: { transform: throwing } },
      /"codec.transform" failed on a test payload: Invalid key length/,
    )
    const lossy = { encode: (t: string) => t, decode: () => '{}' }
    refused({ codec: { transform: lossy } }, /"codec.transform" does not round-trip/)
    const broken: Codec = { encode: () => '1', decode: () => 2 }
    refused({ codec: broken }, /"codec" does not round-trip/)
  })

  void test('a resolved config is valid input again (the provider checks it at boot)', () => {
    const once = defineConfig({
      ...base,
      codec: { transform: reversing },
      webhookUrl: 'https://a.example/hooks',
    })
    const twice = validateConfig(once)
    assert.equal(twice.codec, once.codec)
    assert.deepEqual([twice.webhookUrl, twice.webhooks], [once.webhookUrl, once.webhooks])
  })
})

void describe('config/durable.ts: webhookUrl and webhooks', () => {
  void test('the route mounts at the path of webhookUrl with a 1 MiB limit by default', () => {
    const config = validateConfig({
      ...base,
      webhookUrl: 'https://shop.example.com/durable/webhooks/',
    })
    assert.equal(config.webhookUrl, 'https://shop.example.com/durable/webhooks/')
    assert.deepEqual(config.webhooks, { path: '/durable/webhooks', maxBodyBytes: 1_048_576 })
  })

  void test('webhooks.path and maxBodyBytes override', () => {
    const config = validateConfig({
      ...base,
      webhookUrl: 'https://api.example.com/public/cb',
      webhooks: { path: '/cb', maxBodyBytes: 4096 },
    })
    assert.deepEqual(config.webhooks, { path: '/cb', maxBodyBytes: 4096 })
  })

  void test('nothing is mounted without webhookUrl', () => {
    const config = validateConfig(base)
    assert.equal(config.webhookUrl, undefined)
    assert.equal(config.webhooks, undefined)
  })

  void test('bad values are refused, naming the field', () => {
    const url = 'https://shop.example.com/hooks'
    refused(
      { webhookUrl: '/hooks' },
      /"webhookUrl" must be an absolute http\(s\) URL/,
      'webhookUrl',
    )
    refused(
      { webhookUrl: 'ftp://x.example/hooks' },
      /"webhookUrl" must be an absolute http\(s\) URL/,
    )
    refused({ webhookUrl: (t: string) => t }, /"webhookUrl" must be an absolute http\(s\) URL/)
    refused({ webhookUrl: `${url}?via=cairn` }, /"webhookUrl" must have no query/)
    refused({ webhookUrl: 'https://shop.example.com' }, /"webhookUrl" must not give the path "\/"/)
    refused(
      { webhookUrl: 'https://shop.example.com/caf%C3%A9' },
      /"webhookUrl" must give an absolute URL path/,
    )
    refused(
      { webhooks: { maxBodyBytes: 10 } },
      /"webhooks" has no effect without webhookUrl/,
      'webhooks',
    )
    refused({ webhookUrl: url, webhooks: [] }, /"webhooks" must be an object/)
    refused(
      { webhookUrl: url, webhooks: { path: 'cb' } },
      /"webhooks.path" must give/,
      'webhooks.path',
    )
    refused({ webhookUrl: url, webhooks: { path: '/a/../b' } }, /"webhooks.path"/)
    refused({ webhookUrl: url, webhooks: { limit: 1 } }, /"webhooks.limit" is not a known option/)
    for (const bad of [0, 1.5, null, '1mb', 64 * 1024 * 1024 + 1, Number.NaN])
      refused(
        { webhookUrl: url, webhooks: { maxBodyBytes: bad } },
        /"webhooks.maxBodyBytes" maxBodyBytes must be an integer from 1 to 67108864/,
        'webhooks.maxBodyBytes',
      )
  })
})

void describe('config/durable.ts: transports', () => {
  const db = transports.db()
  void test('transports of transports.*(…) and a transport naming one of them are taken', () => {
    const config = validateConfig({ ...base, transports: { db }, transport: 'db' })
    assert.deepEqual(Object.keys(config.transports), ['db'])
    assert.equal(config.transport, 'db')
    assert.deepEqual(validateConfig(base).transports, {})
    assert.equal(validateConfig(base).transport, undefined)
  })

  void test('a transport that is not one of transports, or not a transport, is refused', () => {
    refused(
      { transports: { db }, transport: 'redis' },
      /"transport" must name one of transports \(db\), got "redis"/,
      'transport',
    )
    refused(
      { transport: 'db' },
      /"transport" names a transport, but there is no transports object/,
      'transport',
    )
    refused(
      { transports: { db: { connection: 'redis://x' } } },
      /"transports.db" must be transports.db\(…\) or transports.bullmq\(…\)/,
    )
    refused({ transports: [] }, /"transports" must be an object of transports/)
    refused({ transports: { 'has space': db } }, /"transports.has space" must be named by a letter/)
    refused(
      { transports: { db }, transport: 42 },
      /"transport" must name one of transports \(db\), got 42/,
    )
  })
})
