/**
 * The report stream's edges the conformance suite does not reach: a group lost with Redis's data
 * is made again and the reports added since are read; a batch given back is taken over only once
 * its idle time says so; a Redis too old for XAUTOCLAIM is refused by name.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Redis } from 'ioredis'
import {
  addReport,
  checkStreamSupport,
  reportStreamKey,
  ReportStream,
} from '../src/report_stream.ts'
import { dropPrefix, REDIS_URL, redisUp, uniquePrefix } from './redis_fixture.ts'

const skip = !redisUp && 'Redis is down'

async function fixture(t: { after: (fn: () => Promise<void>) => void }) {
  const prefix = uniquePrefix()
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: null })
  t.after(async () => {
    await client.quit()
    await dropPrefix(prefix)
  })
  return { prefix, client }
}

void test(
  'a group lost with the data is made again, and reports added since are read',
  { skip },
  async (t) => {
    const { prefix, client } = await fixture(t)
    const engine = new ReportStream(prefix, 'engine:a')
    await engine.ensureGroup(client)
    await addReport(client, prefix, 'one')
    assert.deepEqual(
      (await engine.read(client, 10, 100)).map((r) => r.text),
      ['one'],
    )
    await client.del(reportStreamKey(prefix)) // Redis restarted empty: stream and group gone
    await addReport(client, prefix, 'two') // a worker's XADD makes the stream, not the group
    assert.deepEqual(
      (await engine.read(client, 10, 100)).map((r) => r.text),
      ['two'],
    )
  },
)

void test(
  'a batch given back is taken over once idle for the hold, not before',
  { skip },
  async (t) => {
    const { prefix, client } = await fixture(t)
    const a = new ReportStream(prefix, 'engine:a')
    const b = new ReportStream(prefix, 'engine:b')
    await a.ensureGroup(client)
    await addReport(client, prefix, 'r')
    const [entry] = await a.read(client, 10, 100)
    assert.ok(entry)
    assert.deepEqual(await b.reclaim(client, 60_000, 10), [], 'held: not taken over')
    await a.release(client, [entry.id], 59_800) // due for takeover in 200 ms
    assert.deepEqual(await b.reclaim(client, 60_000, 10), [], 'not yet idle for the hold')
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(
      (await b.reclaim(client, 60_000, 10)).map((r) => r.text),
      ['r'],
    )
    await b.acknowledge(client, [entry.id])
    assert.equal(await client.xlen(reportStreamKey(prefix)), 0, 'acknowledged entries are deleted')
  },
)

void test('a Redis without XAUTOCLAIM (before 6.2) is refused by version', async () => {
  const answering = (version: string) =>
    ({ info: async () => `# Server\r\nredis_version:${version}\r\n` }) as unknown as Redis
  await assert.rejects(checkStreamSupport(answering('6.0.16')), (error: Error) => {
    assert.equal((error as { code?: string }).code, 'E_INVALID_ARGUMENT')
    assert.match(error.message, /Redis 6\.0 has no XAUTOCLAIM; the report stream needs Redis 6\.2/)
    return true
  })
  await checkStreamSupport(answering('6.2.0'))
  await checkStreamSupport(answering('7.0.15'))
})

void test(
  'the names of engines gone silent are forgotten, never one that holds reports',
  { skip },
  async (t) => {
    const { prefix, client } = await fixture(t)
    const gone = new ReportStream(prefix, 'engine:gone')
    const holding = new ReportStream(prefix, 'engine:holding')
    const live = new ReportStream(prefix, 'engine:live')
    await gone.ensureGroup(client)
    await addReport(client, prefix, 'settled')
    const [settled] = await gone.read(client, 1, 100)
    assert.ok(settled)
    await gone.acknowledge(client, [settled.id]) // gone holds nothing
    await addReport(client, prefix, 'held')
    assert.equal((await holding.read(client, 1, 100)).length, 1) // holding keeps one pending
    await new Promise((resolve) => setTimeout(resolve, 150))
    assert.equal(await live.forgetSilent(client, 100), 1)
    const names = (
      (await client.xinfo('CONSUMERS', reportStreamKey(prefix), 'engines')) as unknown[][]
    )
      .map((row) => String(row[1]))
      .sort()
    assert.deepEqual(names, ['engine:holding'])
  },
)
