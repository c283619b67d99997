// One position of a run: its facts, progress, formatted input (registered steps), output and
// error with copy buttons, links to its neighbours, “Fork from here”, and what its step logged
// (step_logs_panel.js). A position whose step is running has logs but no outcome yet: it shows
// them all the same. While the run is open, the run's stream, narrowed to this position
// (`?seq=`), keeps the logs, the progress and the step's state current.
import { runPath } from './run_path.js'
import { forkFrom } from './actions.js'
import { get } from './api.js'
import { h, replace, takeFocusFromMain } from './dom.js'
import { OPEN_STATUSES } from './filters.js'
import { formatDuration, formatTime } from './format.js'
import { openStream } from './live.js'
import { runHref, stepHref } from './router.js'
import { actionsAllowed } from './session.js'
import { stepLogsPanel } from './step_logs_panel.js'
import { breadcrumbs, facts, jsonBlock, notice, statusBadge } from './widgets.js'

/** The step view: `{ element, dispose() }`. */
export function stepView(route) {
  const { id, seq } = route.params
  const body = h('div', {}, h('p', { role: 'status', text: 'Loading position…' }))
  const element = h(
    'section',
    { class: 'view view-step' },
    breadcrumbs([
      [id, runHref(id), true],
      [`position ${seq}`, null, false],
    ]),
    body,
  )
  const page = { runId: id, seq, disposed: false, closeStream: null }
  void load(page, body)
  return {
    element,
    dispose: () => {
      page.disposed = true
      page.closeStream?.()
    },
  }
}

async function load(page, body) {
  const { runId, seq } = page
  const panel = stepLogsPanel()
  // The logs are extra: when they cannot be read, the rest of the page still shows.
  const logs = get(
    `${runPath(runId)}/logs`,
    new URLSearchParams({ fromSeq: String(seq), limit: '1' }),
  )
    .then((answer) => answer.logs.find((record) => record.seq === seq) ?? null)
    .catch((error) => void panel.fail(error.message))
  try {
    // Two positions: this one, and the next one if there is one (for the “Next” link).
    const params = new URLSearchParams({ fromSeq: String(seq), limit: '2' })
    const [{ steps }, { run }, record] = await Promise.all([
      get(`${runPath(runId)}/steps`, params),
      get(runPath(runId)),
      logs,
    ])
    if (page.disposed) return
    const step = steps.find((entry) => entry.seq === seq)
    if (!step && !record)
      return void replace(
        body,
        heading(`Position ${seq}`),
        notice('This run has no such position.', 'error'),
      )
    Object.assign(page, { run, step, hasNext: steps.some((entry) => entry.seq === seq + 1) })
    page.detail = h('div', {})
    showDetail(page, panel)
    if (record !== undefined) panel.update(record)
    replace(body, page.detail, panel.logs)
    takeFocusFromMain(document.getElementById('step-title'))
    if (OPEN_STATUSES.includes(run.status)) follow(page, panel)
  } catch (error) {
    replace(
      body,
      heading(`Position ${seq}`),
      notice(`Could not load the position: ${error.message}`, 'error'),
    )
  }
}

/** Live updates of this position until the run ends or the page goes. */
function follow(page, panel) {
  const params = new URLSearchParams({ seq: String(page.seq) })
  page.closeStream = openStream(`stream/${runPath(page.runId)}`, params, {
    logs: ({ logs }) => {
      const record = logs.find((entry) => entry.seq === page.seq)
      if (record) panel.update(record)
    },
    step: (step) => {
      if (step.seq !== page.seq || fingerprint(step) === fingerprint(page.step)) return
      page.step = step
      showDetail(page, panel)
    },
    run: (summary) => (page.run = { ...page.run, ...summary }),
    // The run is over: no more changes, and no reconnecting to hear that again. A position
    // still without an outcome now never gets one: it is shown as unfinished.
    end: () => {
      page.closeStream?.()
      if (!page.step) showDetail(page, panel)
    },
  })
}

function fingerprint(step) {
  return step ? `${step.status}|${step.updatedAt}|${step.attempts}` : ''
}

/** (Re)builds the position's part above the logs; focus inside it goes to its new heading. */
function showDetail(page, panel) {
  const hadFocus = page.detail.contains(document.activeElement)
  replace(
    page.detail,
    page.step
      ? stepDetail(page.run, page.step, page.hasNext, panel.progress)
      : runningDetail(page.run, page.seq, panel.progress),
  )
  if (hadFocus) document.getElementById('step-title')?.focus()
}

function heading(text) {
  return h('h1', { id: 'step-title', tabindex: '-1', text })
}

/** A position with logs and no outcome recorded: its step runs now (or ran when the run ended). */
function runningDetail(run, seq, progress) {
  const open = OPEN_STATUSES.includes(run.status)
  return [
    h(
      'div',
      { class: 'view-header' },
      heading(`Position ${seq}`),
      statusBadge(open ? 'running' : 'unfinished'),
    ),
    notice(
      open
        ? 'No outcome recorded yet: its step is running.'
        : 'The run ended before this position recorded an outcome.',
    ),
    progress,
    neighbours(run, seq, false),
  ]
}

function stepDetail(run, step, hasNext, progress) {
  return [
    h(
      'div',
      { class: 'view-header' },
      heading(`${step.seq}. ${step.name}`),
      statusBadge(step.status),
    ),
    facts([
      ['Kind', step.kind],
      ['Attempts', String(step.attempts)],
      ['Started', formatTime(step.startedAt)],
      ['Updated', formatTime(step.updatedAt)],
      ['Duration', formatDuration(step.durationMs)],
      // A remote step: the worker that ran the recorded attempt, and how long its task waited.
      ['Worker', step.worker ? step.worker.id : null],
      ['Queued', step.worker ? formatDuration(step.worker.queuedMs) : null],
      [
        'Ran on worker',
        step.worker
          ? formatDuration(Date.parse(step.worker.finishedAt) - Date.parse(step.worker.startedAt))
          : null,
      ],
      ['Wakes at', step.wakeAt ? formatTime(step.wakeAt) : null],
      ['Delivered as', step.order === null || step.order === undefined ? null : `#${step.order}`],
    ]),
    progress,
    h(
      'div',
      { class: 'toolbar', role: 'group', 'aria-label': 'Position actions' },
      actionsAllowed()
        ? h('button', {
            type: 'button',
            class: 'button',
            text: 'Fork from here…',
            onclick: () => void forkFrom(run, step.seq),
          })
        : null,
      neighbourLinks(run, step.seq, hasNext),
    ),
    step.error ? jsonBlock('Error', step.error) : null,
    // Only registered steps record one; null is what every other position has, so no section.
    step.input === null || step.input === undefined ? null : jsonBlock('Input', step.input),
    jsonBlock('Output', step.output),
  ]
}

function neighbours(run, seq, hasNext) {
  return h(
    'div',
    { class: 'toolbar', role: 'group', 'aria-label': 'Position actions' },
    neighbourLinks(run, seq, hasNext),
  )
}

function neighbourLinks(run, seq, hasNext) {
  return [
    seq > 0
      ? h('a', { class: 'button', href: stepHref(run.id, seq - 1), text: 'Previous position' })
      : null,
    hasNext
      ? h('a', { class: 'button', href: stepHref(run.id, seq + 1), text: 'Next position' })
      : null,
  ]
}
