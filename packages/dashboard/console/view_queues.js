// The Queues page: the named queues the engine registered (GET api/queues), one row per queue —
// concurrency, steps running (holding a slot) and waiting for one, how long the oldest has
// waited — read from the store (every engine's steps), refreshed every 5 s while open.
import { get } from './api.js'
import { liveTableView, textTable } from './live_table.js'
import { notice } from './widgets.js'

const COLUMNS = ['Queue', 'Concurrency', 'Running', 'Waiting', 'Oldest waiting']

/** The queues view: `{ element, dispose() }`. */
export function queuesView() {
  return liveTableView({
    className: 'view-queues',
    title: 'Queues',
    hint: 'Named queues bound how many attempts of their steps run at once, across every engine. A waiting step holds no engine slot; its run shows status waiting.',
    loading: 'Loading queues…',
    failure: 'Could not list the queues',
    load: async () => {
      const { queues, now } = await get('queues')
      if (queues.length === 0)
        return notice(
          'No queues registered on this engine (engine.registerQueue, or queues in config/durable.ts).',
        )
      return textTable(
        'queues-table',
        'Named queues',
        COLUMNS,
        queues.map((q) => row(q, now)),
      )
    },
  })
}

function row(q, now) {
  return [
    q.queue,
    String(q.concurrency),
    String(q.granted),
    String(q.waiting),
    q.oldestWaitingSince === null
      ? '—'
      : `${Math.max(0, Math.round((now - q.oldestWaitingSince) / 1000))} s`,
  ]
}
