/**
 * The worker half closes whatever Redis does, through a relay: Redis down (connections refused:
 * commands wait through reconnects, maxRetriesPerRequest being null) or no longer answering (a
 * frozen server, a network cut). Close gives up its hand-back (reported to onError; the lock
 * lapses and the task is delivered again) and drops its connections, and the worker's process
 * then exits. A close or a process that hung would be failed by the test's timeout, not by a
 * measured duration.
 */
import { firstAttemptTask } from '@cairn/core/testing'
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { TaskMessage } from '@cairn/core/wire'
import { closingWorkerScript, startScript } from '../../worker/test/script_process.ts'
import { TcpRelay } from '../../worker/test/tcp_relay.ts'
import { createUnderTest, REDIS_URL, redisUp, uniquePrefix } from './redis_fixture.ts'

const HANG = { timeout: 60_000, skip: !redisUp && 'Redis is down' }

/**
 * The worker's process: a worker half through the relay that opens (and, in `held` mode, takes
 * the task and waits for the word that Redis went away), then closes, prints what onError got,
 * and must then exit on its own.
 */
const WORKER = closingWorkerScript(`
const [url, prefix] = process.argv.slice(1)
const { bullmqTransport } = await import('@cairn/bullmq')
const errors = []
const worker = bullmqTransport({ connection: url, prefix, onError: (e) => errors.push(e.message) }).worker()
`)

function task(step: string): TaskMessage {
  const runId = `close-${process.pid}-${Date.now()}`
  return firstAttemptTask({ runId, step, input: '{}', heartbeatIntervalMs: 1_000 })
}

for (const outage of ['refuse', 'blackhole'] as const)
  void test(
    `close gives up its hand-back and drops its connections when Redis ${outage === 'refuse' ? 'is down' : 'stops answering'}; the process exits`,
    HANG,
    async (t) => {
      const under = createUnderTest()
      t.after(() => under.cleanup())
      const engine = under.engine()
      await engine.open()
      t.after(() => engine.close())
      await engine.publish([{ message: task('close-test'), delayMs: 0 }])
      const relay = await TcpRelay.start(REDIS_URL, 6379)
      t.after(() => relay.close())
      const worker = startScript(t, WORKER, [relay.urlFor(REDIS_URL), under.prefix, 'held'])
      await worker.printed(/^held 1$/m)
      relay[outage]()
      worker.tell()
      const { code, output } = await worker.exited
      assert.equal(code, 0, output)
      assert.match(output, /closed .*handing back 1 task\(s\) did not finish/)
    },
  )

void test(
  'close during an open Redis never answers returns; the process exits',
  HANG,
  async (t) => {
    const relay = await TcpRelay.start(REDIS_URL, 6379)
    t.after(() => relay.close())
    relay.blackhole()
    const args = [relay.urlFor(REDIS_URL), uniquePrefix(), 'open'] // nothing is written under it
    const { code, output } = await startScript(t, WORKER, args).exited
    assert.equal(code, 0, output)
    assert.match(output, /^open failed$/m)
    assert.match(output, /^closed /m)
  },
)
