// One position of a run: its facts, formatted input (registered steps), output and error with
// copy buttons, links to its neighbours, and “Fork from here”.
import { runPath } from './run_path.js'
import { forkFrom } from './actions.js'
import { get } from './api.js'
import { h, replace, takeFocusFromMain } from './dom.js'
import { formatDuration, formatTime } from './format.js'
import { runHref, stepHref } from './router.js'
import { actionsAllowed } from './session.js'
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
  void load(id, seq, body)
  return { element, dispose: () => {} }
}

async function load(runId, seq, body) {
  try {
    // Two positions: this one, and the next one if there is one (for the “Next” link).
    const params = new URLSearchParams({ fromSeq: String(seq), limit: '2' })
    const [{ steps }, { run }] = await Promise.all([
      get(`${runPath(runId)}/steps`, params),
      get(runPath(runId)),
    ])
    const step = steps.find((entry) => entry.seq === seq)
    if (!step)
      return void replace(
        body,
        heading(`Position ${seq}`),
        notice('This run has no such position.', 'error'),
      )
    const hasNext = steps.some((entry) => entry.seq === seq + 1)
    replace(body, stepDetail(run, step, hasNext))
    takeFocusFromMain(document.getElementById('step-title'))
  } catch (error) {
    replace(
      body,
      heading(`Position ${seq}`),
      notice(`Could not load the position: ${error.message}`, 'error'),
    )
  }
}

function heading(text) {
  return h('h1', { id: 'step-title', tabindex: '-1', text })
}

function stepDetail(run, step, hasNext) {
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
      step.seq > 0
        ? h('a', {
            class: 'button',
            href: stepHref(run.id, step.seq - 1),
            text: 'Previous position',
          })
        : null,
      hasNext
        ? h('a', { class: 'button', href: stepHref(run.id, step.seq + 1), text: 'Next position' })
        : null,
    ),
    step.error ? jsonBlock('Error', step.error) : null,
    // Only registered steps record one; null is what every other position has, so no section.
    step.input === null || step.input === undefined ? null : jsonBlock('Input', step.input),
    jsonBlock('Output', step.output),
  ]
}
