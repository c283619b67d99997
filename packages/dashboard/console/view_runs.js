// The runs list: server-paged with the opaque cursor, newest or oldest first, status chips
// with facet counts, the filter form, bulk actions over the filter, and live updates for runs
// matching the filter.
import { get } from './api.js'
import { bulkActions } from './bulk.js'
import { h } from './dom.js'
import { filterParams, toggleStatus } from './filters.js'
import { announce, openStream } from './live.js'
import { navigate, runsHref } from './router.js'
import { filterForm } from './runs_filter_form.js'
import { NEWEST_FIRST, flipped, sortOf, withSort } from './run_sort.js'
import { runsTable } from './runs_table.js'
import { statusChips } from './status_chips.js'
import { stuckChip } from './stuck_chip.js'
import { stuckFilter, stuckQuery, withoutStuck } from './stuck_filter.js'
import { notice } from './widgets.js'

const PAGE_SIZE = 50
const FACETS_REFRESH_MS = 2000

/** The runs view: `{ element, update(route), dispose() }`. */
export function runsView(route) {
  const state = {
    query: route.query,
    cursors: [],
    abort: null,
    closeStream: null,
    facetsTimer: null,
    // Whether the page shown is the last one (no next cursor): where oldest first ends.
    lastPage: false,
  }
  const chips = statusChips((status) => apply(toggleStatus(state.query, status)))
  const form = filterForm({
    onApply: (params) => apply(withKeptKeys(params, state.query)),
    onClear: () => apply(withKeptKeys(new URLSearchParams(), withoutStuck(state.query))),
  })
  const stuck = stuckFilter((minutes) => apply(stuckQuery(state.query, minutes)))
  const stuckActive = stuckChip(() => apply(withoutStuck(state.query)))
  const table = runsTable({
    onSortToggle: () => navigate(runsHref(listParams(state.query, flipped(sortOf(state.query))))),
  })
  const status = h('div', { class: 'list-status', role: 'status' })
  const pager = pagerControls(state)
  const liveBadge = h('span', { class: 'live-badge', text: 'Live: connecting' })
  const parts = { chips, form, stuck, stuckActive, table, status, pager, liveBadge }
  const element = h(
    'section',
    { class: 'view view-runs', 'aria-labelledby': 'runs-title' },
    h(
      'div',
      { class: 'view-header' },
      h('h1', { id: 'runs-title', tabindex: '-1', text: 'Runs' }),
      liveBadge,
    ),
    chips.element,
    stuck.element,
    stuckActive.element,
    form.element,
    bulkActions(
      () => state.query,
      () => load(state, parts),
    ),
    status,
    table.element,
    pager.element,
  )
  // A new filter keeps the order; a new filter or order starts again from the first page.
  const apply = (params) => navigate(runsHref(listParams(params, sortOf(state.query))))
  const update = (next) => {
    const filterChanged =
      filterParams(next.query).toString() !== filterParams(state.query).toString()
    const sortChanged = sortOf(next.query) !== sortOf(state.query)
    state.query = next.query
    if (filterChanged || sortChanged) state.cursors = []
    refresh(state, parts, filterChanged)
  }
  refresh(state, parts, true)
  void loadWorkflows(form)
  return { element, update, dispose: () => dispose(state) }
}

/** The list part of a query: its filter and sort, no cursor. */
function listParams(query, sort) {
  return withSort(filterParams(query), sort)
}

/** The form's filter with the keys the form does not show kept exactly as they are. */
function withKeptKeys(params, query) {
  for (const status of query.getAll('status')) params.append('status', status)
  for (const key of ['stuckFor', 'claimableBefore'])
    if (query.get(key)) params.set(key, query.get(key))
  return params
}

function refresh(state, parts, filterChanged) {
  parts.form.fill(state.query)
  parts.stuck.fill(state.query)
  parts.stuckActive.render(state.query)
  parts.chips.render(state.query.getAll('status'), null)
  parts.table.setSort(sortOf(state.query))
  void load(state, parts)
  if (filterChanged) restartStream(state, parts)
}

async function load(state, parts) {
  state.abort?.abort()
  const abort = (state.abort = new AbortController())
  const pageParams = listParams(state.query, sortOf(state.query))
  pageParams.set('limit', String(PAGE_SIZE))
  const cursor = state.query.get('cursor')
  if (cursor) pageParams.set('cursor', cursor)
  parts.status.replaceChildren('Loading runs…')
  state.lastPage = false
  try {
    const page = await get('runs', pageParams, { signal: abort.signal })
    state.lastPage = page.nextCursor === null
    parts.table.setRuns(page.runs)
    parts.pager.render(page.nextCursor)
    parts.status.replaceChildren(`${page.runs.length} runs on this page.`)
  } catch (error) {
    if (abort.signal.aborted) return
    parts.status.replaceChildren(notice(`Could not load runs: ${error.message}`, 'error'))
  }
  void refreshFacets(state, parts)
}

async function refreshFacets(state, parts) {
  try {
    const facets = await get('facets', filterParams(state.query))
    parts.chips.render(state.query.getAll('status'), facets.byStatus)
    parts.form.setWorkflows(facets.byWorkflow)
  } catch {
    // Counts stay as they were; the next event or page load tries again.
  }
}

async function loadWorkflows(form) {
  try {
    const { workflows } = await get('workflows')
    form.setWorkflows([...new Set(workflows.map((entry) => entry.workflow))])
  } catch {
    // The datalist is a convenience; typing a name works without it.
  }
}

function restartStream(state, parts) {
  state.closeStream?.()
  state.closeStream = openStream('stream/runs', filterParams(state.query), {
    run: (run) => onLiveRun(state, parts, run),
    onStateChange: (connected) => {
      parts.liveBadge.textContent = connected ? 'Live' : 'Live: reconnecting'
      parts.liveBadge.classList.toggle('live-on', connected)
    },
  })
}

function onLiveRun(state, parts, run) {
  // A new run is the newest: it belongs at the top of the first page newest first, and at
  // the bottom of the last page oldest first (added while that page has room; once it is
  // full, Next page reaches it). Rows shown update in place.
  const newestFirst = sortOf(state.query) === NEWEST_FIRST
  const top = !state.query.get('cursor') && newestFirst
  const bottom = !newestFirst && state.lastPage
  parts.table.upsert(run, { prepend: top, append: bottom, max: PAGE_SIZE })
  announce(`Run ${run.id} (${run.workflow}) is ${run.status}.`)
  if (state.facetsTimer !== null) return
  state.facetsTimer = setTimeout(() => {
    state.facetsTimer = null
    void refreshFacets(state, parts)
  }, FACETS_REFRESH_MS)
}

function pagerControls(state) {
  const first = h('button', { type: 'button', class: 'button', text: 'First page' })
  const previous = h('button', { type: 'button', class: 'button', text: 'Previous page' })
  const next = h('button', { type: 'button', class: 'button', text: 'Next page' })
  const goTo = (cursor) => {
    const params = listParams(state.query, sortOf(state.query))
    if (cursor) params.set('cursor', cursor)
    navigate(runsHref(params))
  }
  let nextCursor = null
  first.addEventListener('click', () => {
    state.cursors = []
    goTo(null)
  })
  previous.addEventListener('click', () => goTo(state.cursors.pop() ?? null))
  next.addEventListener('click', () => {
    state.cursors.push(state.query.get('cursor') ?? '')
    goTo(nextCursor)
  })
  const render = (cursor) => {
    nextCursor = cursor
    const onFirst = !state.query.get('cursor')
    first.disabled = onFirst
    previous.disabled = onFirst
    next.disabled = cursor === null
  }
  const element = h('nav', { class: 'pager', 'aria-label': 'Pages of runs' }, first, previous, next)
  return { element, render }
}

function dispose(state) {
  state.abort?.abort()
  state.closeStream?.()
  clearTimeout(state.facetsTimer)
}
