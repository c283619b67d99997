/** The live routes: `GET api/stream/runs?<filter>` and `GET api/stream/runs/:id`. */
import type { Hono } from 'hono'
import { RunNotFoundError } from '@cairn/core'
import type { ResolvedOptions } from '../options.ts'
import type { AppEnv } from '../http/app_env.ts'
import { filterFromSearchParams } from '../api/run_filter.ts'
import { streamRunList } from './list_stream.ts'
import { streamRun } from './run_stream.ts'
import { openSseChannel } from './sse_channel.ts'
import type { StreamRegistry } from './stream_registry.ts'
import { runIdParam } from '../api/run_id_param.ts'
import { principalKey } from './principal_key.ts'
import { SharedReads } from './shared_reads.ts'

export function mountStreamRoutes(
  app: Hono<AppEnv>,
  options: ResolvedOptions,
  registry: StreamRegistry,
): void {
  const { engine, keepAliveMs } = options
  const reads = new SharedReads(engine)
  const onError = (error: unknown) =>
    options.logger.warn(
      { errorName: error instanceof Error ? error.name : typeof error },
      'cairn dashboard: a live stream could not refresh; it retries at its next poll',
    )

  app.get('/api/stream/runs', (c) => {
    const filter = filterFromSearchParams(new URL(c.req.url).searchParams, [])
    const holder = principalKey(c.get('principal'))
    return openSseChannel(c, registry, holder, keepAliveMs, async (channel) =>
      streamRunList(engine, reads, filter, channel, options.listPollMs, onError),
    )
  })

  app.get('/api/stream/runs/:id', async (c) => {
    const runId = runIdParam(c)
    if ((await engine.getRun(runId)) === null)
      throw new RunNotFoundError(`no run with id "${runId}"`)
    const holder = principalKey(c.get('principal'))
    return openSseChannel(c, registry, holder, keepAliveMs, async (channel) =>
      streamRun(engine, reads, runId, channel, options.runPollMs, onError),
    )
  })
}
