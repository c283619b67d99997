/**
 * `node ace durable:worker` in the fixture app, as child processes on a real Redis: with config
 * `transport: 'bullmq'`, the app's convert step is dispatched by a `durable:work` engine and run
 * by a `durable:worker` process (its container-built service names the process), which builds no
 * engine and opens no store; `durable:workers` lists it; SIGTERM drains it (exit 0). Bad flags and a worker with nothing to
 * serve are refused with exit code 1.
 */
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { dropPrefix, redisUp, uniquePrefix } from '../../bullmq/test/redis_fixture.ts'
import { runAce, startAce } from './ace_process.ts'
import { clientEngine } from './client_engine.ts'
import { tempDir } from './helpers.ts'

const skip = !redisUp && 'Redis is down'

void test(
  'a step placed on a transport runs on durable:worker; SIGTERM drains it',
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
    const engine = startAce(['durable:work'], db, { ...env, CAIRN_TEST_RATE_SOURCE: 'engine' })
    t.after(() => engine.child.kill('SIGKILL'))
    const worker = startAce(['durable:worker', '--concurrency=2', '--worker-id=w-1'], db, {
      ...env,
      CAIRN_TEST_RATE_SOURCE: 'worker',
    })
    t.after(() => worker.child.kill('SIGKILL'))
    assert.match(
      await worker.waitForOutput(/Taking tasks\./),
      /Cairn worker "w-1" on transport "bullmq": 1 step\(s\): convert/,
    )
    await engine.waitForOutput(/Driving runs\./)

    const { runId } = await client.start('convert', { cents: 150, currency: 'EUR' })
    assert.deepEqual(await client.waitForRun(runId, { timeoutMs: 60_000 }), {
      runId,
      status: 'completed',
      output: { cents: 300, rateSource: 'worker' },
    })
    const [step] = await client.getSteps(runId)
    assert.deepEqual(
      [step?.name, step?.kind, step?.status, step?.attempts],
      ['convert', 'step', 'completed', 1],
    )

    // durable:workers lists it, read from the transport by a process that drives nothing.
    const listed = await runAce(['durable:workers', '--json'], db, env)
    assert.equal(listed.code, 0, listed.stderr)
    const { workers } = JSON.parse(listed.stdout) as {
      workers: { workerId: string; transport: string; steps: string[]; protocol: number }[]
    }
    assert.deepEqual(
      workers.map((w) => [w.workerId, w.transport, w.steps, w.protocol]),
      [['w-1', 'bullmq', ['convert'], 1]],
    )
    const table = await runAce(['durable:workers'], db, env)
    assert.match(table.stdout, /w-1.*bullmq.*convert.*v1/s)

    worker.child.kill('SIGTERM')
    const exit = await worker.exited
    assert.equal(exit.code, 0, exit.stderr)
    assert.match(exit.stdout, /SIGTERM received: draining/)
    // Store-less: the worker process never opened the store (no engine was built there).
    assert.doesNotMatch(exit.stdout + exit.stderr, /store "sqlite"/)
  },
)

void test(
  'a step on transports.queue (config/queue.ts adapter) runs on durable:worker; SIGTERM drains it',
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
    const env = { CAIRN_TEST_QUEUE_PREFIX: prefix }
    const engine = startAce(['durable:work'], db, { ...env, CAIRN_TEST_RATE_SOURCE: 'engine' })
    t.after(() => engine.child.kill('SIGKILL'))
    const worker = startAce(['durable:worker', '--worker-id=q-1'], db, {
      ...env,
      CAIRN_TEST_RATE_SOURCE: 'worker',
    })
    t.after(() => worker.child.kill('SIGKILL'))
    assert.match(
      await worker.waitForOutput(/Taking tasks\./),
      /Cairn worker "q-1" on transport "queue": 1 step\(s\): convert/,
    )
    await engine.waitForOutput(/Driving runs\./)
    const { runId } = await client.start('convert', { cents: 150, currency: 'EUR' })
    assert.deepEqual(await client.waitForRun(runId, { timeoutMs: 60_000 }), {
      runId,
      status: 'completed',
      output: { cents: 300, rateSource: 'worker' },
    })
    const listed = await runAce(['durable:workers', '--json'], db, env)
    assert.equal(listed.code, 0, listed.stderr)
    const { workers } = JSON.parse(listed.stdout) as {
      workers: { workerId: string; transport: string; steps: string[] }[]
    }
    assert.deepEqual(
      workers.map((w) => [w.workerId, w.transport, w.steps]),
      [['q-1', 'queue', ['convert']]],
    )
    worker.child.kill('SIGTERM')
    const exit = await worker.exited
    assert.equal(exit.code, 0, exit.stderr)
    assert.match(exit.stdout, /SIGTERM received: draining/)
  },
)

void test(
  'durable:worker refuses bad flags and a config with nothing to serve (exit 1)',
  { skip },
  async (t) => {
    const dir = await tempDir(t)
    const db = join(dir, 'durable.sqlite')
    const prefix = uniquePrefix()
    t.after(() => dropPrefix(prefix))
    const env = { CAIRN_TEST_REDIS_PREFIX: prefix }
    const concurrency = await runAce(['durable:worker', '--concurrency=0'], db, env)
    assert.equal(concurrency.code, 1)
    assert.match(
      concurrency.stderr,
      /E_INVALID_ARGUMENT: --concurrency must be an integer from 1 to 10000, "adaptive" or "adaptive:MIN-MAX", got "0"/,
    )
    const bounds = await runAce(['durable:worker', '--concurrency=adaptive:8-2'], db, env)
    assert.equal(bounds.code, 1)
    assert.match(bounds.stderr, /--concurrency must be .*got "adaptive:8-2"/)
    const capabilities = await runAce(['durable:worker', '--capabilities=gpu,has space'], db, env)
    assert.equal(capabilities.code, 1)
    assert.match(
      capabilities.stderr,
      /E_INVALID_ARGUMENT: --capabilities must be a comma-separated list/,
    )
    const transport = await runAce(['durable:worker', '--transport=kafka'], db, env)
    assert.equal(transport.code, 1)
    assert.match(
      transport.stderr,
      /E_INVALID_ARGUMENT: --transport "kafka" is not one of config transports \(bullmq\)/,
    )
    // Without the env, the fixture's config has no transports.
    const none = await runAce(['durable:worker'], db)
    assert.equal(none.code, 1)
    assert.match(none.stderr, /E_INVALID_ARGUMENT: config\/durable.ts has no transports/)
  },
)
