// What the timeline shows of a position's log record (step_log_widgets.js): a small progress
// bar and the newest line, level first, cut to fit its row. And the row of a position that
// has a record but no checkpoint yet — a step running now, logging before its outcome — so
// it is on the timeline where it runs, not only once it is done.
import { h } from './dom.js'
import { truncate } from './format.js'
import { latestAttempt, latestLine, levelBadge, progressBar } from './step_log_widgets.js'

/** The Log cell's content for `record` (undefined: the position has none). */
export function logCell(record, seq) {
  if (!record) return null
  const line = latestLine(record)
  return [
    record.progress
      ? progressBar(record.progress, `Progress of position ${seq}`, 'tl-progress')
      : null,
    line
      ? h(
          'span',
          { class: 'tl-log-line', title: truncate(line.message, 500) },
          levelBadge(line.level),
          ' ',
          h('span', { class: 'tl-log-message', text: truncate(line.message, 200) }),
        )
      : null,
  ]
}

/** A step-like row for a position known only from its log record. */
export function loggedPosition(record) {
  const times = [record.lines[0]?.at, record.progress?.at, record.updatedAt].filter(Boolean)
  return {
    seq: record.seq,
    name: record.name ?? 'running step',
    kind: '—',
    status: 'running',
    attempts: latestAttempt(record),
    startedAt: times.reduce((a, b) => (Date.parse(a) <= Date.parse(b) ? a : b)),
    updatedAt: record.updatedAt,
    wakeAt: null,
    durationMs: null,
    // Replaced by the position's step as soon as the step event brings it.
    logged: true,
  }
}

/** A logged position's status as the run stands: a run that ended leaves it unfinished. */
export function loggedStatus(run) {
  return run?.finishedAt ? 'unfinished' : 'running'
}
