// The Queues page: the named queues the engine registered (GET api/queues), one row per queue —
// concurrency, rate (grants in the last period of its limit), steps running (holding a slot),
// slots leased by engines (slot leases),
// waiting for one and held back by the rate, how long the oldest has waited — read from the
// store (every engine's steps), refreshed every 5 s while open.
import { get } from './api.js'
import { liveTableView, textTable } from './live_table.js'
import { notice } from './widgets.js'

const COLUMNS = [
  'Queue',
  'Concurrency',
  'Rate',
  'Running',
  'Leased',
  'Waiting',
  'Throttled',
  'Oldest waiting',
]

/** The queues view: `{ element, dispose() }`. */
export function queuesView() {
  return liveTableView({
    className: 'view-queues',
    title: 'Queues',
    hint: 'Named queues bound how many attempts of their steps run at once, and how many start per period (rate), across every engine. Rate shows the grants in the last period of its limit; throttled steps wait beside a free slot for the rate. A waiting step holds no engine slot; its run shows status waiting. Leased: slots engines hold for queues with slot leases (handed to their own steps in memory; running includes only steps granted by the store).',
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
    rate(q),
    String(q.granted),
    String(q.leased),
    String(q.waiting),
    String(q.throttled),
    q.oldestWaitingSince === null
      ? '—'
      : `${Math.max(0, Math.round((now - q.oldestWaitingSince) / 1000))} s`,
  ]
}

/** "3 / 5 per 1 s": grants in the last period, of the limit; "—" without a rate. */
function rate(q) {
  if (q.rateLimit === null) return '—'
  return `${q.recentGrants} / ${q.rateLimit.limit} per ${period(q.rateLimit.periodMs)}`
}

function period(ms) {
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  if (ms % 1000 === 0) return `${ms / 1000} s`
  return `${ms} ms`
}
