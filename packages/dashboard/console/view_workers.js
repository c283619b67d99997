// The Workers page: the remote-step fleet on the engine's transports (GET api/workers), one row
// per live worker — id, transport, host, capabilities, steps, concurrency, tasks in flight,
// last heartbeat, protocol — refreshed every 5 s while the page is open.
import { get } from './api.js'
import { liveTableView, textTable } from './live_table.js'
import { notice } from './widgets.js'

const COLUMNS = [
  'Worker',
  'Transport',
  'Host',
  'Capabilities',
  'Steps',
  'Concurrency',
  'In flight',
  'Last heartbeat',
  'Protocol',
]

/** The workers view: `{ element, dispose() }`. */
export function workersView() {
  return liveTableView({
    className: 'view-workers',
    title: 'Workers',
    hint: 'Processes serving remote steps, as they last announced themselves (every 10 s by default).',
    loading: 'Loading workers…',
    failure: 'Could not list the workers',
    load: async () => {
      const { workers } = await get('workers')
      if (workers.length === 0)
        return notice(
          'No live workers. Steps placed on a transport wait until a worker runs (node ace durable:worker, or createWorker).',
        )
      const now = Date.now()
      return textTable(
        'workers-table',
        'Live workers',
        COLUMNS,
        workers.map((w) => row(w, now)),
      )
    },
  })
}

function row(w, now) {
  return [
    w.workerId,
    w.transport,
    w.pid === null ? w.host : `${w.host}:${w.pid}`,
    w.capabilities.join(', ') || '—',
    w.steps.join(', '),
    w.concurrency.mode === 'fixed'
      ? String(w.concurrency.limit)
      : `${w.concurrency.limit} (adaptive ${w.concurrency.min ?? '?'}–${w.concurrency.max ?? '?'})`,
    String(w.inFlight),
    `${Math.max(0, Math.round((now - w.lastSeenAt) / 1000))} s ago`,
    w.protocol === null ? `incompatible (${w.protocols.join(', ')})` : `v${w.protocol}`,
  ]
}
