// The Singletons page: the singleton keys with open runs (GET api/singletons), one row per key
// in (workflow, key) order — its limit, the runs holding a slot, the runs queued for one and how
// long the first queued run has waited — counted by the store (every engine's runs), refreshed
// every 5 s while open. A key links to its runs in the runs list; a workflow to its keys only.
// `#/singletons?workflow=…&cursor=…`: the page's filter and place are in the address.
import { get } from './api.js'
import { h } from './dom.js'
import { formatDuration } from './format.js'
import { liveTableView, textTable } from './live_table.js'
import { runsHref, singletonsHref } from './router.js'
import { notice } from './widgets.js'

const PAGE_SIZE = 50
const COLUMNS = ['Workflow', 'Key', 'Limit', 'Admitted', 'Queued', 'Oldest queued']

/** The singletons view: `{ element, dispose() }`. */
export function singletonsView(route) {
  const workflow = route.query.get('workflow') ?? ''
  const cursor = route.query.get('cursor') ?? ''
  return liveTableView({
    className: 'view-singletons',
    title: workflow === '' ? 'Singletons' : `Singletons of ${workflow}`,
    hint: 'Singleton keys bound how many runs of a key run at once (the workflow’s singleton limit); over it, new runs wait queued and start in start order as slots free. Admitted runs hold a slot until they end (waiting and parked ones too). Only keys with open runs are listed.',
    loading: 'Loading singleton keys…',
    failure: 'Could not list the singleton keys',
    load: async () => {
      const params = new URLSearchParams({ limit: String(PAGE_SIZE) })
      if (workflow !== '') params.set('workflow', workflow)
      if (cursor !== '') params.set('cursor', cursor)
      const { keys, nextCursor, now } = await get('singletons', params)
      const table =
        keys.length === 0
          ? notice(
              cursor === ''
                ? 'No singleton key has open runs (workflows registered with a singleton option admit runs under a key).'
                : 'No more keys.',
            )
          : textTable(
              'singletons-table',
              'Singleton keys',
              COLUMNS,
              keys.map((k) => row(k, now)),
            )
      return [table, pager(workflow, cursor, nextCursor)]
    },
  })
}

function row(k, now) {
  const runs = new URLSearchParams({ workflow: k.workflow, singletonKey: k.key })
  return [
    h('a', {
      href: singletonsHref(new URLSearchParams({ workflow: k.workflow })),
      text: k.workflow,
    }),
    h('a', {
      href: runsHref(runs),
      class: 'mono',
      text: k.key,
      'aria-label': `Runs of key ${k.key} (${k.workflow})`,
    }),
    String(k.limit),
    String(k.admitted),
    String(k.queued),
    k.oldestQueuedSince === null ? '—' : formatDuration(Math.max(0, now - k.oldestQueuedSince)),
  ]
}

/** Links to the first page (when not on it) and the next one (when there is one). */
function pager(workflow, cursor, nextCursor) {
  const at = (next) => {
    const params = new URLSearchParams()
    if (workflow !== '') params.set('workflow', workflow)
    if (next) params.set('cursor', next)
    return singletonsHref(params)
  }
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages of singleton keys' },
    workflow === ''
      ? null
      : h('a', { class: 'button', href: '#/singletons', text: 'All workflows' }),
    cursor === '' ? null : h('a', { class: 'button', href: at(null), text: 'First page' }),
    nextCursor === null
      ? null
      : h('a', { class: 'button', href: at(nextCursor), text: 'Next page' }),
  )
}
