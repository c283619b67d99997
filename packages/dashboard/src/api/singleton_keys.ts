/**
 * `GET api/singletons`: the singleton keys with open runs (engine.singletonKeys), a page at a
 * time in (workflow, key) order: each key's limit, runs holding a slot, runs queued and when
 * the first queued one was created, with the engine clock's `now` to age it. Query keys:
 * `workflow` (only its keys), `limit` (1..200, default 50) and `cursor` (a page's
 * `nextCursor`, passed to the engine as it is: it names a key, nothing more); anything else is a
 * 400. A key's runs are the runs list filtered by `workflow` and `singletonKey`.
 */
import type { AdmissionKeyStats, Engine } from '@cairn/core'
import { badRequest } from '../http/http_error.ts'
import { intParam } from './limits.ts'

const KEYS = ['workflow', 'limit', 'cursor']

export interface SingletonKeyView {
  workflow: string
  key: string
  limit: number
  admitted: number
  queued: number
  /** Engine clock ms, or null when nothing is queued. */
  oldestQueuedSince: number | null
}

export async function singletonKeysPage(engine: Engine, params: URLSearchParams) {
  for (const name of new Set(params.keys()))
    if (!KEYS.includes(name) || params.getAll(name).length > 1)
      throw badRequest(
        KEYS.includes(name)
          ? `${name} may be given once`
          : `unknown parameter "${name.slice(0, 40)}" (known: ${KEYS.join(', ')})`,
      )
  const workflow = params.get('workflow') ?? ''
  const cursor = params.get('cursor') ?? ''
  const page = await engine.singletonKeys({
    ...(workflow === '' ? {} : { workflow }),
    limit: intParam(params.get('limit'), 'limit', { min: 1, max: 200, fallback: 50 }),
    ...(cursor === '' ? {} : { cursor }),
  })
  return {
    keys: page.keys.map(toView),
    nextCursor: page.nextCursor,
    now: engine.options.clock.now(),
  }
}

function toView(stats: AdmissionKeyStats): SingletonKeyView {
  return {
    workflow: stats.scope,
    key: stats.key,
    limit: stats.limit,
    admitted: stats.admitted,
    queued: stats.queued,
    oldestQueuedSince: stats.oldestQueuedSince,
  }
}
