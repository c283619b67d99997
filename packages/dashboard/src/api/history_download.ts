/**
 * `GET api/runs/:id/history`: the run's recorded history (`engine.exportHistory`, the
 * document `replayHistory` reads) as a file to save: pretty-printed so it diffs well as a test
 * fixture, named after the run (made safe: http/content_disposition.ts). A read like any
 * other: the same auth, allowed on a read-only dashboard, never cached.
 */
import type { Engine } from '@cairn/core'
import { attachmentDisposition } from '../http/content_disposition.ts'
import { safeJson } from '../http/responses.ts'

export async function historyDownload(engine: Engine, runId: string): Promise<Response> {
  // E_RUN_NOT_FOUND (404) for an unknown run comes from the engine.
  const history = await engine.exportHistory(runId)
  return new Response(safeJson(history, 2), {
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      'content-disposition': attachmentDisposition(runId, '.history.json'),
    },
  })
}
