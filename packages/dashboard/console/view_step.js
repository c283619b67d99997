// One position of a run: its facts, formatted output and error with copy buttons, links to
// its neighbours, and “Fork from here”.
import { forkFrom } from './actions.js'
import { get } from './api.js'
import { h, replace, takeFocusFromMain } from './dom.js'
import { formatDuration, formatTime } from './format.js'
import { runHref, runsHref, stepHref } from './router.js'
import { facts, jsonBlock, notice, statusBadge } from './widgets.js'

/** The step view: `{ element, dispose() }`. */
export function stepView(route) {
  const { id, seq } = route.params
  const body = h('div', {}, h('p', { role: 'status', text: 'Loading position…' }))
  const element = h(
    'section',
    { class: 'view view-step' },
    h(
      'nav',
      { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' },
      h('a', { href: runsHref(), text: 'Runs' }),
      ' › ',
      h('a', { href: runHref(id), class: 'mono', text: id }),
      ' › ',
      h('span', { text: `position ${seq}` }),
    ),
    body,
  )
  void load(id, seq, body)
  return { element, dispose: () => {} }
}

async function load(runId, seq, body) {
  try {
    const params = new URLSearchParams({ fromSeq: String(seq), limit: '1' })
    const [{ steps }, { run }] = await Promise.all([
      get(`runs/${encodeURIComponent(runId)}/steps`, params),
      get(`runs/${encodeURIComponent(runId)}`),
    ])
    const step = steps.find((entry) => entry.seq === seq)
    if (!step)
      return void replace(
        body,
        heading(`Position ${seq}`),
        notice('This run has no such position.', 'error'),
      )
    replace(body, stepDetail(run, step))
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

function stepDetail(run, step) {
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
      ['Wakes at', step.wakeAt ? formatTime(step.wakeAt) : null],
      ['Delivered as', step.order === null || step.order === undefined ? null : `#${step.order}`],
    ]),
    h(
      'div',
      { class: 'toolbar', role: 'group', 'aria-label': 'Position actions' },
      h('button', {
        type: 'button',
        class: 'button',
        text: 'Fork from here…',
        onclick: () => void forkFrom(run, step.seq),
      }),
      step.seq > 0
        ? h('a', {
            class: 'button',
            href: stepHref(run.id, step.seq - 1),
            text: 'Previous position',
          })
        : null,
      h('a', { class: 'button', href: stepHref(run.id, step.seq + 1), text: 'Next position' }),
    ),
    step.error ? jsonBlock('Error', step.error) : null,
    jsonBlock('Output', step.output),
  ]
}
