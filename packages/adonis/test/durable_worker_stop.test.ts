/**
 * `node ace durable:worker` stops on any stop signal and exits, in the fixture app on a real
 * Redis (BullMQ transport):
 * - a SIGTERM while the worker starts (its transport still connecting) is a stop: bin/console.ts's
 *   own SIGTERM listener keeps Node from exiting on it, and a worker that had not heard it went
 *   on taking tasks for good once started (a shop's worker once stayed up an hour after SIGTERM);
 * - once closed, the process exits even when a step body that ignored its abort signal still
 *   holds a timer.
 * A worker that never exited is killed by ace_process.ts's hang guard and fails on its exit code.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { dropPrefix, REDIS_URL, redisUp, uniquePrefix } from '../../bullmq/test/redis_fixture.ts'
import { TcpRelay } from '../../worker/test/tcp_relay.ts'
import { startAce } from './ace_process.ts'
import { clientEngine } from './client_engine.ts'
import { tempDir } from './helpers.ts'

const skip = !redisUp && 'Redis is down'

void test('a SIGTERM while durable:worker starts stops it: it exits 0', { skip }, async (t) => {
  const dir = await tempDir(t)
  const prefix = uniquePrefix()
  t.after(() => dropPrefix(prefix))
  // Connections to Redis wait, unanswered, until released: the worker's start cannot finish.
  const relay = await TcpRelay.start(REDIS_URL, 6379)
  t.after(() => relay.close())
  relay.hold()
  const worker = startAce(['durable:worker', '--worker-id=w-early'], join(dir, 'durable.sqlite'), {
    CAIRN_TEST_REDIS_PREFIX: prefix,
    CAIRN_REDIS_URL: relay.urlFor(REDIS_URL),
  })
  t.after(() => worker.child.kill('SIGKILL'))
  // Printed once the worker is built, before it starts: it is starting now, held by the relay.
  await worker.waitForOutput(/Cairn worker "w-early" on transport "bullmq"/)
  worker.child.kill('SIGTERM')
  await worker.waitForOutput(/SIGTERM received: draining/) // heard while starting
  relay.release()
  const exit = await worker.exited
  assert.equal(exit.code, 0, `${exit.stdout}\n${exit.stderr}`)
  assert.doesNotMatch(exit.stdout, /Taking tasks/)
})

void test(
  'durable:worker exits once closed though a step body ignoring its abort still holds a timer',
  { skip },
  async (t) => {
    const dir = await tempDir(t)
    const db = join(dir, 'durable.sqlite')
    const prefix = uniquePrefix()
    t.after(() => dropPrefix(prefix))
    const client = await clientEngine(t, db)
    client.register('convert', 1, () => {
      throw new Error('the test process must not execute runs')
    })
    const env = { CAIRN_TEST_REDIS_PREFIX: prefix }
    const engine = startAce(['durable:work'], db, env)
    t.after(() => engine.child.kill('SIGKILL'))
    const worker = startAce(['durable:worker', '--worker-id=w-stuck', '--drain-timeout=100'], db, {
      ...env,
      CAIRN_TEST_CONVERT_IGNORES_ABORT: '1',
    })
    t.after(() => worker.child.kill('SIGKILL'))
    await worker.waitForOutput(/Taking tasks\./)
    await engine.waitForOutput(/Driving runs\./)
    await client.start('convert', { cents: 150, currency: 'EUR' })
    await worker.waitForOutput(/convert: ignoring its abort signal/)
    worker.child.kill('SIGTERM')
    const exit = await worker.exited
    assert.equal(exit.code, 0, `${exit.stdout}\n${exit.stderr}`)
    assert.match(exit.stdout, /SIGTERM received: draining for up to 100 ms/)
    assert.match(
      exit.stdout + exit.stderr,
      /still running \d+ ms after the worker closed .*: exiting/,
    )
  },
)
