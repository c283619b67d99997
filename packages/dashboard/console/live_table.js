// A page that shows one table read from the API and refreshed every few seconds while it is
// open (the Workers, Queues, Singletons and Schedules pages): a heading, a hint, and a body the loader fills — the
// table, a notice when there is nothing, or the error.
import { h, replace } from './dom.js'
import { notice } from './widgets.js'

const REFRESH_MS = 5_000

/**
 * `{ element, dispose(), refresh(focusKey?) }`. `load()` resolves with what the body shows; it
 * is called at once and every REFRESH_MS until disposed; a rejection shows `failure:
 * <message>`. `refresh()` loads again now (after an action). A control with a `data-focus-key`
 * that had focus has it again in the new body (a refresh never throws a keyboard user out);
 * `refresh(focusKey)` focuses that one (the control whose dialog just closed).
 */
export function liveTableView({ className, title, hint, loading, failure, load }) {
  const body = h('div', {}, h('p', { role: 'status', text: loading }))
  const element = h(
    'section',
    { class: `view ${className}` },
    h('h1', { tabindex: '-1', text: title }),
    h('p', { class: 'hint', text: hint }),
    body,
  )
  let stopped = false
  let timer = null
  // Only the newest load fills the body and sets the next timer (an action's refresh may
  // overlap the periodic one).
  let generation = 0
  const refresh = async (focusKey) => {
    const mine = ++generation
    if (timer !== null) clearTimeout(timer)
    timer = null
    let content
    try {
      content = await load()
    } catch (error) {
      content = notice(`${failure}: ${error.message}`, 'error')
    }
    if (stopped || mine !== generation) return
    const active = document.activeElement
    const key = focusKey ?? (body.contains(active) ? active.dataset.focusKey : undefined)
    replace(body, content)
    if (key !== undefined)
      [...body.querySelectorAll('[data-focus-key]')]
        .find((el) => el.dataset.focusKey === key)
        ?.focus()
    timer = setTimeout(refresh, REFRESH_MS)
  }
  void refresh()
  return {
    element,
    refresh: (focusKey) => void refresh(focusKey),
    dispose: () => {
      stopped = true
      if (timer !== null) clearTimeout(timer)
    },
  }
}

/** A table: `rows` is an array of arrays of cells (strings, or nodes such as links), one per column. */
export function textTable(className, caption, columns, rows) {
  return h(
    'table',
    { class: `runs-table ${className}` },
    h('caption', { class: 'visually-hidden', text: caption }),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        columns.map((name) => h('th', { scope: 'col', text: name })),
      ),
    ),
    h(
      'tbody',
      {},
      rows.map((cells) =>
        h(
          'tr',
          {},
          cells.map((cell) => h('td', {}, cell)),
        ),
      ),
    ),
  )
}
