// The runs list's table. Rows are keyed by run id so live events update a row in place.
import { h } from './dom.js'
import { formatTime, truncate } from './format.js'
import { runHref } from './router.js'
import { OLDEST_FIRST, sortLabel } from './run_sort.js'
import { statusBadge } from './widgets.js'

const COLUMNS = ['Run', 'Workflow', 'Version', 'Status', 'Created', 'Updated', 'Tags', 'Error']

/**
 * A table of RunSummary rows: `{ element, setRuns(runs), upsert(run, { prepend, append, max }),
 * setSort(sort) }`. The Created header is a button: `onSortToggle()` when it is pressed.
 */
export function runsTable({ onSortToggle }) {
  const body = h('tbody')
  const rows = new Map()
  const empty = h('p', { class: 'empty', text: 'No runs match this filter.', hidden: true })
  const caption = h('caption', { class: 'visually-hidden' })
  const created = createdHeader(onSortToggle)
  const table = h(
    'table',
    { class: 'runs-table' },
    caption,
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        COLUMNS.map((name) =>
          name === 'Created' ? created.element : h('th', { scope: 'col', text: name }),
        ),
      ),
    ),
    body,
  )
  const setSort = (sort) => {
    caption.textContent = `Runs matching the filter, ${sortLabel(sort)}`
    created.render(sort)
  }
  const setRuns = (runs) => {
    rows.clear()
    body.replaceChildren(...runs.map((run) => remember(rows, run)))
    empty.hidden = runs.length > 0
  }
  const upsert = (run, { prepend, append, max }) => {
    const existing = rows.get(run.id)
    if (existing) return void existing.replaceWith(remember(rows, run))
    if (prepend) {
      body.prepend(remember(rows, run))
      while (body.rows.length > max) forget(rows, body.lastElementChild)
    } else if (append && body.rows.length < max && sortsLast(run, body.lastElementChild)) {
      body.append(remember(rows, run))
    } else return
    empty.hidden = true
  }
  return { element: h('div', { class: 'table-scroll' }, table, empty), setRuns, upsert, setSort }
}

// The header cell says the order to assistive technology (aria-sort); its button flips it.
function createdHeader(onSortToggle) {
  const arrow = h('span', { class: 'sort-arrow', 'aria-hidden': 'true' })
  const button = h(
    'button',
    { type: 'button', class: 'sort-button', onclick: () => onSortToggle() },
    'Created',
    arrow,
  )
  const element = h('th', { scope: 'col' }, button)
  const render = (sort) => {
    const oldest = sort === OLDEST_FIRST
    element.setAttribute('aria-sort', oldest ? 'ascending' : 'descending')
    arrow.textContent = oldest ? ' ↑' : ' ↓'
    button.title = `Listed ${sortLabel(sort)}; press for ${oldest ? 'newest' : 'oldest'} first`
  }
  return { element, render }
}

function remember(rows, run) {
  const row = runRow(run)
  rows.set(run.id, row)
  return row
}

/** Oldest first, whether `run` belongs after `lastRow` (a run seen late may be an older one). */
function sortsLast(run, lastRow) {
  return lastRow === null || run.createdAt >= lastRow.dataset.created
}

function forget(rows, row) {
  rows.delete(row.dataset.runId)
  row.remove()
}

function runRow(run) {
  const errorText = run.error ? `${run.error.name}: ${run.error.message}` : ''
  return h(
    'tr',
    { dataset: { runId: run.id, created: run.createdAt } },
    h('th', { scope: 'row' }, h('a', { href: runHref(run.id), class: 'mono', text: run.id })),
    h('td', { text: run.workflow }),
    h('td', { text: run.version }),
    h('td', {}, statusBadge(run.status)),
    h('td', { class: 'nowrap', text: formatTime(run.createdAt) }),
    h('td', { class: 'nowrap', text: formatTime(run.updatedAt) }),
    h(
      'td',
      {},
      (run.tags ?? []).map((tag) => h('span', { class: 'tag', text: tag })),
    ),
    h('td', { class: 'error-cell', title: errorText, text: truncate(errorText, 80) }),
  )
}
