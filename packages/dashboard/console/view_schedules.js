// The Schedules page: the schedules in the store (GET api/schedules), one row per schedule in
// id order — its workflow, when it fires (cron and time zone, or every N), overlap policy,
// paused, its next firings, the last run it started (a link, with its status), windows fired
// and skipped — with Pause / Resume / Trigger buttons, refreshed every 5 s while open.
// `#/schedules?after=<id>`: the page's place is in the address. Below, a Retention section:
// the retention policies of this dashboard's engine (GET api/retention, docs/retention.md).
import { get } from './api.js'
import { h } from './dom.js'
import { formatTime } from './format.js'
import { liveTableView, textTable } from './live_table.js'
import { runHref, schedulesHref } from './router.js'
import { scheduleActions, scheduleActionsNote } from './schedule_actions.js'
import { notice, statusBadge } from './widgets.js'

const PAGE_SIZE = 50
/** Next firings shown per schedule (the API gives up to 5). */
const UPCOMING_SHOWN = 3
const COLUMNS = [
  'Schedule',
  'Workflow',
  'When',
  'Overlap',
  'Paused',
  'Next firings',
  'Last run',
  'Fired',
  'Skipped',
]

/** The schedules view: `{ element, dispose() }`. */
export function schedulesView(route) {
  const after = route.query.get('after') ?? ''
  const view = liveTableView({
    className: 'view-schedules',
    title: 'Schedules',
    hint: 'Schedules start runs of a workflow on a cron pattern or every fixed period, exactly once per window, from whichever engine drives it. Skipped windows were passed over (the previous run still open, missed beyond the catch-up, or refused). Trigger starts one run now, outside the windows.',
    loading: 'Loading schedules…',
    failure: 'Could not list the schedules',
    load: async () => {
      const params = new URLSearchParams({ limit: String(PAGE_SIZE) })
      if (after !== '') params.set('after', after)
      const [{ schedules, nextAfter }, retention] = await Promise.all([
        get('schedules', params),
        get('retention'),
      ])
      const note = scheduleActionsNote()
      const withActions = note === null
      const table =
        schedules.length === 0
          ? notice(
              after === ''
                ? 'No schedules (engine.schedule, the engine’s schedules option, or a workflow’s schedule).'
                : 'No more schedules.',
            )
          : textTable(
              'schedules-table',
              'Schedules',
              withActions ? [...COLUMNS, 'Actions'] : COLUMNS,
              schedules.map((s) => row(s, withActions)),
            )
      return [
        note === null ? null : h('p', { class: 'muted', text: note }),
        table,
        pager(after, nextAfter),
        retentionSection(retention),
      ]
    },
  })
  const row = (s, withActions) => {
    const cells = [
      h('span', { class: 'mono', text: s.id }),
      s.version === null ? s.workflow : `${s.workflow}@${s.version}`,
      when(s),
      s.overlap,
      s.paused ? 'paused' : 'no',
      upcoming(s),
      lastRun(s),
      String(s.fired),
      String(s.skipped),
    ]
    return withActions ? [...cells, scheduleActions(s, (key) => view.refresh(key))] : cells
  }
  return view
}

/** `0 2 * * * (Europe/Paris)`, or `every 5 min`. */
function when(s) {
  if (s.cron !== null)
    return h('span', { class: 'mono', text: `${s.cron} (${s.timezone ?? 'UTC'})` })
  return `every ${period(s.everyMs)}`
}

function period(ms) {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`
  if (ms % 60_000 === 0) return `${ms / 60_000} min`
  if (ms % 1000 === 0) return `${ms / 1000} s`
  return `${ms} ms`
}

function upcoming(s) {
  if (s.paused) return '—'
  if (s.upcoming.length === 0) return 'none (ended)'
  return h(
    'ul',
    { class: 'plain-list' },
    s.upcoming
      .slice(0, UPCOMING_SHOWN)
      .map((at) => h('li', { class: 'nowrap', text: formatTime(at) })),
  )
}

function lastRun(s) {
  if (s.lastRunId === null) return '—'
  const link = h('a', {
    href: runHref(s.lastRunId),
    class: 'mono',
    text: s.lastRunId,
    'aria-label': `Last run of ${s.id}: ${s.lastRunId}`,
  })
  return [
    link,
    ' ',
    s.lastRun === null
      ? h('span', { class: 'muted', text: '(gone)' })
      : statusBadge(s.lastRun.status),
  ]
}

const RETENTION_COLUMNS = ['Policy', 'Workflow', 'Statuses', 'Max age', 'Keeps newest']

/** The engine's retention policies: which finished runs its sweeps delete. */
function retentionSection({ policies, intervalMs }) {
  return h(
    'section',
    { class: 'retention', 'aria-labelledby': 'retention-title' },
    h('h2', { id: 'retention-title', text: 'Retention' }),
    policies.length === 0
      ? notice(
          'No retention policies on this dashboard’s engine (its retention option): it deletes no finished run by itself. Other engines on the store sweep by their own.',
        )
      : [
          textTable(
            'retention-table',
            'Retention policies',
            RETENTION_COLUMNS,
            policies.map((p) => [
              h('span', { class: 'mono', text: p.name }),
              p.workflow ?? 'every workflow',
              p.statuses.join(', '),
              p.maxAgeMs === null ? '—' : age(p.maxAgeMs),
              p.maxCount === null ? '—' : String(p.maxCount),
            ]),
          ),
          h('p', {
            class: 'field-hint',
            text: `Each engine that drives runs sweeps every ${period(intervalMs)}: a finished run goes once past either bound, with its child runs; runs an open run still needs are kept.`,
          }),
        ],
  )
}

function age(ms) {
  return ms > 0 && ms % 86_400_000 === 0 ? `${ms / 86_400_000} d` : period(ms)
}

/** Links to the first page (when not on it) and the next one (when there is one). */
function pager(after, nextAfter) {
  return h(
    'nav',
    { class: 'pager', 'aria-label': 'Pages of schedules' },
    after === '' ? null : h('a', { class: 'button', href: schedulesHref(), text: 'First page' }),
    nextAfter === null
      ? null
      : h('a', {
          class: 'button',
          href: schedulesHref(new URLSearchParams({ after: nextAfter })),
          text: 'Next page',
        }),
  )
}
