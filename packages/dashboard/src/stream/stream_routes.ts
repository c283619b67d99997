/** The live routes: `GET api/stream/runs?<filter>` and `GET api/stream/runs/:id?seq=`. */
import type { Hono } from 'hono'
import { RunNotFoundError } from '@cairn/core'
import type { ResolvedOptions } from '../options.ts'
import type { AppEnv } from '../http/app_env.ts'
import { filterFromSearchParams } from '../api/run_filter.ts'
import { streamRunList } from './list_stream.ts'
import { EVERY_POSITION, streamRun } from './run_stream.ts'
import type { PositionRange } from './step_log_sender.ts'
import { intParam } from '../api/limits.ts'
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
    const range = positionRange(new URL(c.req.url).searchParams.get('seq'))
    const runId = runIdParam(c)
    if ((await engine.getRun(runId)) === null)
      throw new RunNotFoundError(`no run with id "${runId}"`)
    const holder = principalKey(c.get('principal'))
    return openSseChannel(c, registry, holder, keepAliveMs, async (channel) =>
      streamRun(engine, reads, runId, channel, options.runPollMs, onError, range),
    )
  })
}

/** `?seq=N`: position N only (a position's page needs no other); absent: every position. */
function positionRange(seq: string | null): PositionRange {
  if (seq === null) return EVERY_POSITION
  const from = intParam(seq, 'seq', { min: 0, max: Number.MAX_SAFE_INTEGER - 1, fallback: 0 })
  return { from, to: from + 1 }
}
