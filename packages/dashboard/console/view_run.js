// A run's page: the summary (run_summary.js) and the timeline of its positions, loaded page by
// page from the API, then kept current by the run's event stream without reloading. What the
// steps logged comes from the stream alone: it sends every record when it opens. Once the
// run is deleted from here, the page says so and links back to the runs list.
import { runPath } from './run_path.js'
import { get } from './api.js'
import { h, replace, takeFocusFromMain, uniqueId } from './dom.js'
import { announce, openStream } from './live.js'
import { runsHref } from './router.js'
import { runSummary } from './run_summary.js'
import { timeline } from './timeline.js'
import { breadcrumbs, notice } from './widgets.js'

const STEP_PAGE = 1000

/** The run view: `{ element, dispose() }`. */
export function runView(route) {
  const runId = route.params.id
  const state = { runId, run: null, disposed: false, closeStream: null }
  const summary = h(
    'div',
    { class: 'run-summary' },
    h('p', { role: 'status', text: 'Loading run…' }),
  )
  const line = timeline()
  const progress = h('p', { class: 'list-status', role: 'status' })
  const section = h(
    'section',
    { class: 'timeline-section', 'aria-labelledby': 'timeline-title' },
    h(
      'div',
      { class: 'timeline-header' },
      h('h2', { id: 'timeline-title', text: 'Timeline' }),
      goToPosition(line),
    ),
    progress,
    line.element,
  )
  const parts = { summary, line, progress, section }
  const element = h(
    'section',
    { class: 'view view-run' },
    breadcrumbs([[runId, null, true]]),
    summary,
    section,
  )
  void start(state, parts)
  return {
    element,
    dispose: () => {
      state.disposed = true
      state.closeStream?.()
      line.dispose()
    },
  }
}

/** A jump to one position: with 10,000 rows, Tab alone would be a long walk. */
function goToPosition(line) {
  const id = uniqueId('goto')
  const input = h('input', { id, type: 'number', min: 0, class: 'goto-input', autocomplete: 'off' })
  const error = h('span', { class: 'field-error', role: 'status' })
  const form = h(
    'form',
    { class: 'goto' },
    h('label', { for: id, text: 'Go to position' }),
    input,
    h('button', { type: 'submit', class: 'button button-small', text: 'Go' }),
    error,
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const found = input.value !== '' && line.focusSeq(Number(input.value))
    error.textContent = found ? '' : 'No such position.'
  })
  return form
}

async function start(state, parts) {
  if (!(await loadRun(state, parts))) return
  state.closeStream = openStream(`stream/${runPath(state.runId)}`, undefined, {
    run: (summary) => onRunEvent(state, parts, summary),
    step: (step) => parts.line.upsertStep(step),
    logs: ({ logs }) => parts.line.upsertLogs(logs),
    end: () => void onEnd(state, parts),
  })
  await loadSteps(state, parts)
}

/** (Re)loads the run's detail and rebuilds the summary; false when it could not. */
async function loadRun(state, parts) {
  try {
    const { run } = await get(runPath(state.runId))
    if (state.disposed) return false
    showRun(state, parts, run)
    return true
  } catch (error) {
    const message =
      error.code === 'E_RUN_NOT_FOUND'
        ? `No run ${state.runId}.`
        : `Could not load the run: ${error.message}`
    replace(
      parts.summary,
      h('h1', { id: 'run-title', tabindex: '-1', text: 'Run' }),
      notice(message, 'error'),
    )
    return false
  }
}

function showRun(state, parts, run) {
  const hadFocus = parts.summary.contains(document.activeElement)
  state.run = run
  replace(
    parts.summary,
    runSummary(run, (change) =>
      change?.deleted ? showDeleted(state, parts, change.deleted) : void loadRun(state, parts),
    ),
  )
  const title = document.getElementById('run-title')
  if (hadFocus) title?.focus()
  else takeFocusFromMain(title)
  parts.line.setRun(run)
}

/** The run is gone: no stream, no timeline, a notice and the way back to the list. */
function showDeleted(state, parts, message) {
  state.disposed = true
  state.closeStream?.()
  parts.line.dispose()
  parts.section.remove()
  replace(
    parts.summary,
    h('h1', { id: 'run-title', tabindex: '-1', text: 'Run deleted' }),
    notice(message),
    h('p', {}, h('a', { class: 'button', href: runsHref(), text: 'Back to the runs' })),
  )
  document.getElementById('run-title')?.focus()
}

async function loadSteps(state, parts) {
  let fromSeq = 0
  parts.section.dataset.stepsComplete = 'false'
  while (fromSeq !== null && !state.disposed) {
    const params = new URLSearchParams({ fromSeq: String(fromSeq), limit: String(STEP_PAGE) })
    try {
      const page = await get(`${runPath(state.runId)}/steps`, params)
      parts.line.addSteps(page.steps)
      fromSeq = page.nextFromSeq
    } catch (error) {
      parts.progress.replaceChildren(notice(`Could not load positions: ${error.message}`, 'error'))
      return
    }
    parts.progress.textContent = `${parts.line.count()} positions${fromSeq === null ? '' : ', loading more…'}`
  }
  parts.line.renderNow()
  parts.section.dataset.stepsComplete = 'true'
}

function onRunEvent(state, parts, summary) {
  if (state.run === null) return
  const changed = summary.status !== state.run.status
  showRun(state, parts, { ...state.run, ...summary })
  if (changed) announce(`Run is now ${summary.status}.`)
}

async function onEnd(state, parts) {
  await loadRun(state, parts)
  announce(`Run finished: ${state.run?.status ?? 'ended'}.`)
}
