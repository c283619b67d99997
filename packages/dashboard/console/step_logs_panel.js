// A position's log record on its page: the “Progress” line (bar, done / total or percent,
// attempt, time) and the “Logs” section (log_lines.js), with “N earlier lines dropped” when
// the engine's cap dropped some, and an empty state. `update` takes each newer record as it
// arrives (first from the API, then from the run's stream), ignoring an older one.
import { h, replace } from './dom.js'
import { formatTime } from './format.js'
import { logLines } from './log_lines.js'
import { progressBar, progressText } from './step_log_widgets.js'
import { notice } from './widgets.js'

/** `{ progress, logs, update(record | null), fail(message) }`: two elements to place. */
export function stepLogsPanel() {
  const progress = h('div', { class: 'step-progress', hidden: true })
  const status = h('div', { class: 'list-status', role: 'status', text: 'Loading logs…' })
  const dropped = h('p', { class: 'log-dropped', hidden: true })
  const lines = logLines()
  const logs = h(
    'section',
    { class: 'step-logs', 'aria-labelledby': 'logs-title' },
    h('h2', { id: 'logs-title', text: 'Logs' }),
    status,
    dropped,
    lines.element,
  )
  let current = null
  return {
    progress,
    logs,
    update(record) {
      // The API's answer may land after a newer stream event: keep the newest.
      if (record && current && Date.parse(record.updatedAt) < Date.parse(current.updatedAt)) return
      current = record ?? current
      showProgress(progress, current?.progress ?? null)
      const count = current?.lines.length ?? 0
      status.textContent = count === 0 ? 'No logs for this position.' : ''
      status.hidden = count > 0
      dropped.hidden = !(current?.dropped > 0)
      dropped.textContent = current?.dropped > 0 ? droppedText(current.dropped) : ''
      lines.show(current?.lines ?? [])
    },
    fail(message) {
      status.hidden = false
      replace(status, notice(`Could not load the logs: ${message}`, 'error'))
    },
  }
}

function showProgress(element, progress) {
  element.hidden = progress === null
  if (progress === null) return element.replaceChildren()
  replace(
    element,
    h('span', { class: 'step-progress-label', text: 'Progress' }),
    progressBar(progress, 'Progress'),
    h('span', { class: 'step-progress-text', text: progressText(progress) }),
    h('span', { class: 'muted', text: `attempt ${progress.attempt}` }),
    h('time', { class: 'muted', datetime: progress.at, text: formatTime(progress.at) }),
  )
}

function droppedText(count) {
  return count === 1 ? '1 earlier line dropped.' : `${count} earlier lines dropped.`
}
