// The run's timeline: one row per position, a bar from the position's startedAt to its
// updatedAt on an axis shared by every row, so positions that ran in parallel (ctx.all,
// children) overlap visibly. Open waits are drawn hatched up to now with a mark at their
// wake time. A position whose step logged shows its progress and newest line; one that has
// logged but has no checkpoint yet (its step runs now) gets its row all the same
// (timeline_logs.js). Rows are windowed (virtual_rows.js): 10,000 positions stay responsive.
import { h } from './dom.js'
import { formatDuration, formatTime } from './format.js'
import { runHref, stepHref } from './router.js'
import { logCell, loggedPosition, loggedStatus } from './timeline_logs.js'
import { statusBadge, safeToken } from './widgets.js'
import { virtualRows } from './virtual_rows.js'

const ROW_HEIGHT = 30
const TICKS = [0, 0.25, 0.5, 0.75, 1]
const COLUMNS = ['#', 'Position', 'Kind', 'Status', 'Tries', 'Duration', 'Log', 'Timeline']

/**
 * `{ element, setRun(run), addSteps(steps), upsertStep(step), upsertLogs(records),
 * focusSeq(seq), count() }`. `run` supplies the axis bounds, the run id for links and
 * children/waits for child links; `records` are log records (api/runs/:id/logs).
 */
export function timeline() {
  // `waits`: open waits with no position record yet (a signal wait without a timeout has
  // none), drawn as extra rows after the positions so what the run waits for is on the axis.
  // `logs`: each position's log record by seq.
  const state = {
    run: null,
    steps: [],
    waits: [],
    logs: new Map(),
    indexBySeq: new Map(),
    start: 0,
    end: 1,
  }
  const axis = h('div', { class: 'tl-axis', 'aria-hidden': 'true' })
  const rows = virtualRows({
    rowHeight: ROW_HEIGHT,
    label: 'Positions of this run, one row each',
    renderRow: (index) =>
      index < state.steps.length
        ? stepRow(state, state.steps[index], index)
        : waitRow(state, state.waits[index - state.steps.length], index),
  })
  const header = h(
    'div',
    { class: 'tl-row tl-header', role: 'row', 'aria-rowindex': '1' },
    COLUMNS.slice(0, -1).map((name) => h('div', { role: 'columnheader', text: name })),
    h(
      'div',
      { role: 'columnheader', class: 'tl-axis-cell' },
      h('span', { class: 'visually-hidden', text: 'Timeline' }),
      axis,
    ),
  )
  const table = h(
    'div',
    { class: 'timeline', role: 'table', 'aria-label': 'Timeline', 'aria-rowcount': '1' },
    header,
    rows.element,
  )
  const relayout = (domainChanged) => {
    const waitsBefore = state.waits.length
    state.waits = unrecordedWaits(state)
    const rowCount = state.steps.length + state.waits.length
    table.setAttribute('aria-rowcount', String(rowCount + 1))
    rows.setCount(rowCount)
    if (domainChanged) renderAxis(axis, state)
    if (domainChanged || waitsBefore + state.waits.length > 0) rows.invalidate()
  }
  const live = liveQueue(state, relayout, rows)
  return {
    element: table,
    setRun(run) {
      state.run = run
      relayout(updateDomain(state, state.steps, true))
    },
    addSteps(steps) {
      for (const step of steps) put(state, step)
      relayout(updateDomain(state, steps, false))
    },
    upsertStep: (step) => live.push({ step }),
    upsertLogs: (records) => records.forEach((record) => live.push({ record })),
    /** Scrolls position `seq` into view and focuses its link; false when there is none. */
    focusSeq(seq) {
      const index = state.indexBySeq.get(seq)
      if (index === undefined) return false
      rows.scrollToIndex(index)
      rows.renderNow()
      rows.rowAt(index)?.querySelector('a')?.focus()
      return true
    },
    count: () => state.steps.length,
    renderNow: () => rows.renderNow(),
    dispose: () => {
      live.dispose()
      rows.dispose()
    },
  }
}

/**
 * Live step and log events (`{ step }` or `{ record }`), applied once per frame, in order: a
 * stream that (re)sends thousands of positions at once costs one layout, not one per event.
 */
function liveQueue(state, relayout, rows) {
  let pending = []
  let frame = 0
  const flush = () => {
    frame = 0
    const items = pending
    pending = []
    const steps = []
    const changed = items.map(({ step, record }) => {
      const placed = step ?? putLogs(state, record)
      if (placed === null) return state.indexBySeq.get(record.seq)
      steps.push(placed)
      return put(state, placed)
    })
    relayout(updateDomain(state, steps, false))
    for (const index of new Set(changed)) if (index !== undefined) rows.invalidate(index)
  }
  return {
    push(item) {
      pending.push(item)
      if (frame === 0) frame = requestAnimationFrame(flush)
    },
    dispose: () => cancelAnimationFrame(frame),
  }
}

/**
 * Keeps `record`; returns the row to put for its position when it has no step yet (a logged
 * position, replaced by the step when it comes), else null (its step's row only re-renders).
 */
function putLogs(state, record) {
  state.logs.set(record.seq, record)
  const index = state.indexBySeq.get(record.seq)
  return index === undefined || state.steps[index].logged ? loggedPosition(record) : null
}

// Steps arrive in seq order page by page; live events may replace one or append. A logged
// position never replaces its step (a late log event after the step's own).
function put(state, step) {
  const known = state.indexBySeq.get(step.seq)
  if (known !== undefined) {
    if (!step.logged || state.steps[known].logged) state.steps[known] = step
    return known
  }
  let index = state.steps.length
  if (index > 0 && state.steps[index - 1].seq > step.seq) {
    index = state.steps.findIndex((other) => other.seq > step.seq)
    state.steps.splice(index, 0, step)
    state.steps.forEach((other, at) => state.indexBySeq.set(other.seq, at))
    return index
  }
  state.steps.push(step)
  state.indexBySeq.set(step.seq, index)
  return index
}

/**
 * Widens the axis to cover `steps` (and the run); `reset` recomputes it from the run alone
 * first (a new run object). True when the bounds moved.
 */
function updateDomain(state, steps, reset) {
  const run = state.run
  let start = reset || state.steps.length === steps.length ? Infinity : state.start
  let end = reset || state.steps.length === steps.length ? -Infinity : state.end
  if (run) {
    start = Math.min(start, Date.parse(run.createdAt))
    end = Math.max(end, Date.parse(run.finishedAt ?? run.updatedAt))
    if (!run.finishedAt) end = Math.max(end, Date.now())
  }
  for (const step of steps) {
    start = Math.min(start, Date.parse(step.startedAt))
    end = Math.max(
      end,
      Date.parse(step.updatedAt),
      step.wakeAt ? Date.parse(step.wakeAt) : -Infinity,
    )
  }
  if (!Number.isFinite(start) || !Number.isFinite(end)) return false
  end = Math.max(end, start + 1)
  const changed = start !== state.start || end !== state.end
  state.start = start
  state.end = end
  return changed
}

function renderAxis(axis, state) {
  axis.replaceChildren(
    ...TICKS.map((fraction) => {
      const tick = h('span', {
        class: 'tl-tick',
        text: `+${formatDuration((state.end - state.start) * fraction)}`,
      })
      tick.style.left = `${fraction * 100}%`
      if (fraction === 1) tick.classList.add('tl-tick-last')
      return tick
    }),
  )
}

/** Statuses drawn up to now: the position has not settled. */
const OPEN_STEP = new Set(['waiting', 'retrying', 'running'])

const percent = (state, ms) => ((ms - state.start) / (state.end - state.start)) * 100

function stepRow(state, row, index) {
  const runId = state.run?.id ?? ''
  const step = row.logged ? { ...row, status: loggedStatus(state.run) } : row
  return h(
    'div',
    {
      class: `tl-row tl-status-${safeToken(step.status)}`,
      role: 'row',
      'aria-rowindex': String(index + 2),
    },
    h('div', { role: 'cell', class: 'mono', text: String(step.seq) }),
    h('div', { role: 'cell', class: 'tl-name' }, nameCell(state, step, runId)),
    h('div', { role: 'cell', text: step.kind }),
    h('div', { role: 'cell' }, statusBadge(step.status)),
    h('div', { role: 'cell', text: String(step.attempts) }),
    h('div', { role: 'cell', text: formatDuration(step.durationMs) }),
    h('div', { role: 'cell', class: 'tl-log' }, logCell(state.logs.get(step.seq), step.seq)),
    h('div', { role: 'cell', class: 'tl-track' }, bar(state, step)),
  )
}

function nameCell(state, step, runId) {
  const link = h('a', {
    href: stepHref(runId, step.seq),
    class: step.logged ? 'tl-logged' : null,
    text: step.name,
    title: step.name,
  })
  const childId = step.kind === 'child' ? childRunId(state.run, step.seq) : null
  if (childId === null) return link
  return [
    link,
    ' ',
    h('a', {
      href: runHref(childId),
      class: 'tl-child',
      text: 'child run',
      'aria-label': `Child run ${childId}`,
    }),
  ]
}

/** The child run started at `seq`: from the open wait, else the default child id if listed. */
function childRunId(run, seq) {
  const wait = (run?.waits ?? []).find((entry) => entry.kind === 'child' && entry.seq === seq)
  if (wait) return wait.runId
  const defaultId = `${run?.id}/${seq}`
  const child = (run?.lineage?.children ?? []).find((entry) => entry.id === defaultId)
  return child ? child.id : null
}

function unrecordedWaits(state) {
  return (state.run?.waits ?? []).filter(
    (wait) => wait.seq === null || !state.indexBySeq.has(wait.seq),
  )
}

function waitRow(state, wait, index) {
  const since = state.run ? state.run.updatedAt : new Date().toISOString()
  const step = {
    name: wait.name ?? wait.kind,
    status: 'waiting',
    startedAt: since,
    updatedAt: since,
    wakeAt: null,
  }
  return h(
    'div',
    { class: 'tl-row tl-status-waiting', role: 'row', 'aria-rowindex': String(index + 2) },
    h('div', { role: 'cell', class: 'mono', text: wait.seq === null ? '—' : String(wait.seq) }),
    h('div', { role: 'cell', class: 'tl-name', text: step.name, title: step.name }),
    h('div', { role: 'cell', text: wait.kind }),
    h('div', { role: 'cell' }, statusBadge('waiting')),
    h('div', { role: 'cell', text: '—' }),
    h('div', { role: 'cell', text: '—' }),
    h('div', { role: 'cell', class: 'tl-log' }),
    h('div', { role: 'cell', class: 'tl-track' }, bar(state, step)),
  )
}

function bar(state, step) {
  const started = Date.parse(step.startedAt)
  const open = OPEN_STEP.has(step.status)
  const ended = open
    ? Math.max(Date.parse(step.updatedAt), Math.min(Date.now(), state.end))
    : Date.parse(step.updatedAt)
  const element = h('div', {
    class: `tl-bar tl-bar-${safeToken(step.status)}`,
    title: `${step.name}: ${formatTime(step.startedAt)} → ${open ? 'now' : formatTime(step.updatedAt)}`,
  })
  element.style.left = `${percent(state, started)}%`
  element.style.width = `${Math.max(0, percent(state, ended) - percent(state, started))}%`
  if (!open || !step.wakeAt) return element
  const wake = h('div', { class: 'tl-wake', title: `wakes ${formatTime(step.wakeAt)}` })
  wake.style.left = `${percent(state, Date.parse(step.wakeAt))}%`
  return [element, wake]
}
