// Small pieces shared by the position page and the timeline to show what a step logged and
// reported: its progress (a native <progress>, read out by screen readers with its label) and
// a log level, always written as a word so it never rests on colour alone.
import { h } from './dom.js'
import { safeToken } from './widgets.js'

/** `5 / 10 (50%)`, `50%`, or `0 / 0` (a total of 0 has no fraction). */
export function progressText(progress) {
  const percent = progress.fraction === null ? null : `${Math.floor(progress.fraction * 100)}%`
  if (progress.done !== null && progress.total !== null) {
    const counts = `${progress.done} / ${progress.total}`
    return percent === null ? counts : `${counts} (${percent})`
  }
  return percent ?? 'unknown'
}

/** A progress bar for `progress` (indeterminate without a fraction), named `label`. */
export function progressBar(progress, label, className = 'progress') {
  return h('progress', {
    class: className,
    max: '1',
    value: progress.fraction === null ? null : String(progress.fraction),
    'aria-label': label,
    'aria-valuetext': progressText(progress),
    title: progressText(progress),
  })
}

/** A log level as a badge: the word, with a class per level for its colour. */
export function levelBadge(level) {
  return h('span', { class: `log-level log-level-${safeToken(level)}`, text: level })
}

/** The newest line of a record, or null when it has none. */
export function latestLine(record) {
  return record?.lines?.length > 0 ? record.lines[record.lines.length - 1] : null
}

/** The attempt a record's newest line or progress came from (1 when it has neither). */
export function latestAttempt(record) {
  return Math.max(latestLine(record)?.attempt ?? 1, record?.progress?.attempt ?? 1)
}
