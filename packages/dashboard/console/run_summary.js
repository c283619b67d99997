// The upper part of a run's page: identity, status, facts, error, actions, lineage, waits and
// payloads. Rebuilt from the run object whenever the run changes (live or after an action).
import { runActions } from './actions.js'
import { apiUrl } from './api.js'
import { h } from './dom.js'
import { formatJson, formatTime } from './format.js'
import { runHref } from './router.js'
import { runPath } from './run_path.js'
import { copyButton, facts, jsonBlock, statusBadge } from './widgets.js'

/** Elements for `run`; `onChanged()` reloads after an action. */
export function runSummary(run, onChanged) {
  return [
    h(
      'div',
      { class: 'view-header' },
      h(
        'h1',
        { id: 'run-title', tabindex: '-1' },
        `${run.workflow} `,
        h('span', { class: 'muted', text: `v${run.version}` }),
      ),
      statusBadge(run.status),
    ),
    h(
      'p',
      { class: 'run-id' },
      h('span', { class: 'mono', text: run.id }),
      ' ',
      copyButton('Copy id', () => run.id),
      ' ',
      historyLink(run),
    ),
    runFacts(run),
    runActions(run, onChanged),
    run.error ? errorPanel(run.error) : null,
    lineage(run),
    waits(run.waits ?? []),
    h(
      'div',
      { class: 'payloads' },
      jsonBlock('Input', run.input),
      run.status === 'completed' ? jsonBlock('Output', run.output) : null,
    ),
  ]
}

/**
 * The run's recorded history as a file (api/runs/:id/history), for replay tests. A read, so
 * offered on read-only dashboards too; the session cookie goes with the plain link.
 */
function historyLink(run) {
  return h('a', {
    class: 'button button-small',
    href: apiUrl(`${runPath(run.id)}/history`).href,
    download: true,
    text: 'Download history',
  })
}

function runFacts(run) {
  return facts([
    ['Created', formatTime(run.createdAt)],
    ['Updated', formatTime(run.updatedAt)],
    ['Finished', run.finishedAt ? formatTime(run.finishedAt) : null],
    // A blocked run's waitingOn names what no live worker offers first (engine turn_end.ts);
    // a queued one's, the singleton key it waits for a slot of.
    [waitLabel(run.status), run.waitingOn],
    ['Claimable at', run.claimableAt ? formatTime(run.claimableAt) : null],
    ['Turns', String(run.turns ?? 0)],
    // Shown once it has been taken over: a count near maxRecoveryAttempts is a poison run.
    ['Recoveries', run.recoveries ? String(run.recoveries) : null],
    ['Lease owner', run.leaseOwner],
    // Shown when it differs from the default: most runs have priority 0.
    ['Priority', run.priority ? String(run.priority) : null],
    ['Singleton key', run.singletonKey ?? null],
    ['Queue', run.queue ?? null],
    ['Parked', run.parkReason ? `${run.parkReason.code}: ${run.parkReason.message}` : null],
    [
      'Tags',
      (run.tags ?? []).length > 0
        ? (run.tags ?? []).map((tag) => h('span', { class: 'tag', text: tag }))
        : null,
    ],
    ['Search attributes', hasKeys(run.searchAttributes) ? formatJson(run.searchAttributes) : null],
  ])
}

function hasKeys(value) {
  return value !== null && typeof value === 'object' && Object.keys(value).length > 0
}

function errorPanel(error) {
  const heading = `${error.name ?? 'Error'}${error.code ? ` (${error.code})` : ''}`
  return h(
    'section',
    { class: 'error-panel', 'aria-labelledby': 'run-error-title' },
    h('h2', { id: 'run-error-title', text: heading }),
    h('p', { class: 'error-message', text: error.message ?? '' }),
    error.stack
      ? h(
          'details',
          {},
          h('summary', { text: 'Stack trace' }),
          h('pre', { class: 'json', text: error.stack }),
        )
      : null,
    h('details', {}, h('summary', { text: 'Full error as JSON' }), jsonBlock('Error', error)),
  )
}

function lineage(run) {
  const info = run.lineage ?? {}
  const links = [
    ['Parent', info.parentRunId ?? run.parentRunId],
    ['Continues', info.continuedFrom],
    ['Continued by', info.continuedTo],
    [
      info.origin ? `${info.origin.kind === 'fork' ? 'Forked' : 'Retried'} from` : 'Origin',
      info.origin?.runId,
    ],
  ].filter(([, id]) => typeof id === 'string')
  const children = info.children ?? []
  const derived = info.derived ?? []
  if (links.length === 0 && children.length === 0 && derived.length === 0) return null
  return h(
    'section',
    { class: 'lineage', 'aria-labelledby': 'lineage-title' },
    h('h2', { id: 'lineage-title', text: 'Lineage' }),
    facts(
      links.map(([term, id]) => [term, h('a', { href: runHref(id), class: 'mono', text: id })]),
    ),
    runLinks('Children', children, info.childrenTruncated),
    runLinks('Retries and forks of this run', derived, false),
  )
}

function runLinks(title, runs, truncated) {
  if (runs.length === 0) return null
  return h(
    'div',
    { class: 'run-links' },
    h('h3', { text: `${title} (${runs.length}${truncated ? '+' : ''})` }),
    h(
      'ul',
      {},
      runs.map((run) =>
        h(
          'li',
          {},
          h('a', { href: runHref(run.id), class: 'mono', text: run.id }),
          ' ',
          h('span', { text: run.workflow }),
          ' ',
          statusBadge(run.status),
        ),
      ),
    ),
    truncated ? h('p', { class: 'field-hint', text: 'Only the first ones are listed.' }) : null,
  )
}

function waits(list) {
  if (list.length === 0) return null
  return h(
    'section',
    { class: 'waits', 'aria-labelledby': 'waits-title' },
    h('h2', { id: 'waits-title', text: 'Waiting for' }),
    h(
      'ul',
      {},
      list.map((wait) => h('li', {}, describeWait(wait))),
    ),
  )
}

function describeWait(wait) {
  const at =
    wait.seq === null || wait.seq === undefined ? 'its next position' : `position ${wait.seq}`
  switch (wait.kind) {
    case 'timer':
      return `Timer “${wait.name}” at ${at}, due ${formatTime(wait.until)}`
    case 'signal':
      return `Signal “${wait.name}” at ${at}${wait.timeoutAt ? `, times out ${formatTime(wait.timeoutAt)}` : ''}`
    case 'child':
      return [
        `Child run at ${at}: `,
        h('a', { href: runHref(wait.runId), class: 'mono', text: wait.runId }),
      ]
    case 'retry':
      return `Retry of “${wait.name}” at ${at}, due ${formatTime(wait.at)}`
    default:
      return `${wait.kind} “${wait.name ?? ''}” at ${at}`
  }
}

function waitLabel(status) {
  if (status === 'blocked') return 'Blocked on'
  return status === 'queued' ? 'Queued for' : 'Waiting on'
}
