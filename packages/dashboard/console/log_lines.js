// The lines a step logged, as a list: each with its time, level (a word, styled per level),
// attempt, message (text, never markup), a “truncated” mark and its fields as a collapsible
// JSON block. A live update usually appends lines and, past the cap, drops the oldest: the
// list then changes only at its two ends, so fields someone opened and the focus stay put.
import { h } from './dom.js'
import { formatJson, formatLogTime, formatTime } from './format.js'
import { levelBadge } from './step_log_widgets.js'
import { safeToken } from './widgets.js'

/** `{ element, show(lines) }`: an ordered list, oldest first. */
export function logLines() {
  const element = h('ol', { class: 'log-lines' })
  let shown = []
  return {
    element,
    show(lines) {
      if (!patch(element, shown, lines)) element.replaceChildren(...lines.map(lineItem))
      shown = lines
    },
  }
}

/**
 * Brings the list from `before` to `after` by removing lines at its head and appending at its
 * tail, when that is all that changed; false (nothing touched) otherwise.
 */
function patch(list, before, after) {
  const keys = before.map(lineKey)
  const start = after.length === 0 ? -1 : keys.indexOf(lineKey(after[0]))
  if (start === -1) return before.length === 0 && after.length === 0
  const kept = before.length - start
  if (kept > after.length) return false
  for (let i = 0; i < kept; i++) if (keys[start + i] !== lineKey(after[i])) return false
  for (let i = 0; i < start; i++) list.firstElementChild?.remove()
  list.append(...after.slice(kept).map(lineItem))
  return true
}

function lineKey(line) {
  return JSON.stringify([line.at, line.level, line.attempt, line.message, line.truncated])
}

function lineItem(line) {
  return h(
    'li',
    { class: `log-line log-line-${safeToken(line.level)}` },
    h('time', {
      class: 'log-time mono',
      datetime: line.at,
      title: formatTime(line.at),
      text: formatLogTime(line.at),
    }),
    ' ',
    levelBadge(line.level),
    ' ',
    h('span', { class: 'log-attempt', text: `attempt ${line.attempt}` }),
    ' ',
    h('span', { class: 'log-message', text: line.message }),
    line.truncated
      ? [
          ' ',
          h('span', {
            class: 'log-truncated',
            text: 'truncated',
            title: 'The message was cut, or its fields left out (too large or not encodable).',
          }),
        ]
      : null,
    line.fields === null || line.fields === undefined
      ? null
      : h(
          'details',
          { class: 'log-fields' },
          h('summary', { text: 'Fields' }),
          h('pre', { class: 'json', tabindex: '0', text: formatJson(line.fields) }),
        ),
  )
}
