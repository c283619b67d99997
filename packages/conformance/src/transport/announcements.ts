/** Announcements: engines see the live fleet, not the departed or the stale. */
import assert from 'node:assert/strict'
import type { AnnounceMessage } from '@cairn/core/wire'
import { receive, sleep, task, type DefineTransportTest } from './harness.ts'

function announcement(
  workerId: string,
  at: number,
  fields: Partial<AnnounceMessage> = {},
): AnnounceMessage {
  return {
    v: 1,
    type: 'announce',
    workerId,
    protocols: [1],
    host: 'host-a',
    pid: 4242,
    runtime: 'node 24.21.0',
    steps: ['charge'],
    capabilities: ['pdf'],
    concurrency: { mode: 'fixed', limit: 4 },
    inFlight: 0,
    startedAt: at,
    at,
    ...fields,
  }
}

export function announcementTests(define: DefineTransportTest): void {
  define(
    'engines see each worker’s newest announcement since a time, not the leaving',
    async (_t, h) => {
      const engine = await h.engine()
      const a = await h.worker()
      const b = await h.worker()
      const start = Date.now()
      await a.announce(announcement('w-a', start - 60_000))
      await a.announce(announcement('w-a', start + 1, { inFlight: 2 }))
      await b.announce(announcement('w-b', start + 2))
      await b.announce(announcement('w-b', start + 3, { leaving: true }))
      let seen: AnnounceMessage[] = []
      for (let i = 0; i < 50 && seen.length === 0; i++) {
        seen = await engine.workers(start)
        if (seen.length === 0) await sleep(100)
      }
      assert.deepEqual(seen, [announcement('w-a', start + 1, { inFlight: 2 })])
      assert.deepEqual(await engine.workers(start + 10), [], 'a stale announcement was listed')
    },
  )

  define(
    'a worker announcing only protocol versions the engines do not speak is refused and handed no task',
    async (_t, h) => {
      const engine = await h.engine()
      const refused = await h.worker()
      const now = Date.now()
      await assert.rejects(
        refused.announce(announcement('w-future', now, { protocols: [99] })),
        (error: { code?: string; message?: string }) =>
          error.code === 'E_PROTOCOL_UNSUPPORTED' && /w-future.*\[99\]/.test(error.message ?? ''),
      )
      await engine.publish([{ message: task('charge'), delayMs: 0 }])
      const signal = AbortSignal.timeout(300)
      await assert.rejects(
        refused.receive({ steps: ['charge'], capabilities: [], max: 1, holdMs: 1_000, signal }),
        { code: 'E_PROTOCOL_UNSUPPORTED' },
      )
      assert.deepEqual(
        (await engine.workers(now - 1_000)).map((w) => w.workerId),
        [],
        'a refused announcement was published',
      )
      const able = await h.worker()
      await able.announce(announcement('w-able', now, { protocols: [1, 99] }))
      const [got] = await receive(able, ['charge'])
      assert.ok(got !== undefined, 'the task was taken by the refused worker')
    },
  )
}
