// The Workers page: the remote-step fleet on the engine's transports (GET api/workers), one row
// per live worker — id, transport, host, capabilities, steps, concurrency, tasks in flight,
// last heartbeat, protocol — refreshed every 5 s while the page is open.
import { get } from './api.js'
import { h, replace } from './dom.js'
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
const REFRESH_MS = 5_000

/** The workers view: `{ element, dispose() }`. */
export function workersView() {
  const body = h('div', {}, h('p', { role: 'status', text: 'Loading workers…' }))
  const element = h(
    'section',
    { class: 'view view-workers' },
    h('h1', { tabindex: '-1', text: 'Workers' }),
    h('p', {
      class: 'hint',
      text: 'Processes serving remote steps, as they last announced themselves (every 10 s by default).',
    }),
    body,
  )
  let stopped = false
  let timer = null
  const refresh = async () => {
    await load(body)
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS)
  }
  void refresh()
  return {
    element,
    dispose: () => {
      stopped = true
      if (timer !== null) clearTimeout(timer)
    },
  }
}

async function load(body) {
  try {
    const { workers } = await get('workers')
    replace(body, workers.length === 0 ? emptyNotice() : workersTable(workers, Date.now()))
  } catch (error) {
    replace(body, notice(`Could not list the workers: ${error.message}`, 'error'))
  }
}

function emptyNotice() {
  return notice(
    'No live workers. Steps placed on a transport wait until a worker runs (node ace durable:worker, or createWorker).',
  )
}

function workersTable(workers, now) {
  return h(
    'table',
    { class: 'runs-table workers-table' },
    h('caption', { class: 'visually-hidden', text: 'Live workers' }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        COLUMNS.map((name) => h('th', { scope: 'col', text: name })),
      ),
    ),
    h(
      'tbody',
      {},
      workers.map((w) =>
        h(
          'tr',
          {},
          [
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
          ].map((text) => h('td', { text })),
        ),
      ),
    ),
  )
}
