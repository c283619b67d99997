import assert from 'node:assert/strict'
import { eachStore } from '../helpers/harness.ts'
import { FlakyStore } from '../helpers/flaky_store.ts'

eachStore('store wake-ups', (test) => {
  for (const push of [true, false]) {
    test(`a run started by another process is picked up ${push ? 'at once with' : 'at the next poll without'} push wake-ups`, async (env) => {
      const shared = new FlakyStore(env.handle.store)
      shared.pushWakeups = push
      const worker = await env.engine({ store: shared, pollIntervalMs: 5_000 })
      worker.register('w', 1, async (ctx) => ctx.localStep('s', () => 'ran'))
      const client = await env.engine({ store: shared, drive: false, instanceId: 'client' })
      client.register('w', 1, async () => 'client never runs it')
      await env.skip(10) // the worker's first polls are done; its next safety-net poll is 5 s away
      const { runId } = await client.start('w', null)
      await env.skip(0)
      await env.settle()
      const status = (await client.getRun(runId))?.status
      assert.equal(status, push ? 'completed' : 'pending')
      if (!push) {
        await env.skip(5_000)
        assert.deepEqual(await client.waitForRun(runId, { timeoutMs: 5_000 }), {
          runId,
          status: 'completed',
          output: 'ran',
        })
      }
    })
  }
})
