// The run's timeline: one row per position, a bar from the position's startedAt to its
// updatedAt on an axis shared by every row, so positions that ran in parallel (ctx.all,
// children) overlap visibly. Open waits are drawn hatched up to now with a mark at their
// wake time. Rows are windowed (virtual_rows.js): 10,000 positions stay responsive.
import { h } from './dom.js'
import { formatDuration, formatTime } from './format.js'
import { runHref, stepHref } from './router.js'
import { statusBadge, safeToken } from './widgets.js'
import { virtualRows } from './virtual_rows.js'

const ROW_HEIGHT = 30
const TICKS = [0, 0.25, 0.5, 0.75, 1]
const COLUMNS = ['#', 'Position', 'Kind', 'Status', 'Tries', 'Duration', 'Timeline']

/**
 * `{ element, setRun(run), addSteps(steps), upsertStep(step), scrollToSeq(seq), count() }`.
 * `run` supplies the axis bounds, the run id for links and children/waits for child links.
 */
export function timeline() {
  const state = { run: null, steps: [], indexBySeq: new Map(), start: 0, end: 1 }
  const axis = h('div', { class: 'tl-axis', 'aria-hidden': 'true' })
  const rows = virtualRows({
    rowHeight: ROW_HEIGHT,
    label: 'Positions of this run, one row each',
    renderRow: (index) => stepRow(state, state.steps[index], index),
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
  const relayout = () => {
    const changed = updateDomain(state)
    table.setAttribute('aria-rowcount', String(state.steps.length + 1))
    rows.setCount(state.steps.length)
    if (changed) {
      renderAxis(axis, state)
      rows.invalidate()
    }
  }
  return {
    element: table,
    setRun(run) {
      state.run = run
      relayout()
    },
    addSteps(steps) {
      for (const step of steps) put(state, step)
      relayout()
    },
    upsertStep(step) {
      const index = put(state, step)
      relayout()
      rows.invalidate(index)
    },
    scrollToSeq: (seq) => rows.scrollToIndex(state.indexBySeq.get(seq) ?? 0),
    count: () => state.steps.length,
    renderNow: () => rows.renderNow(),
    dispose: () => rows.dispose(),
  }
}

// Steps arrive in seq order page by page; live events may replace one or append.
function put(state, step) {
  const known = state.indexBySeq.get(step.seq)
  if (known !== undefined) {
    state.steps[known] = step
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

/** Recomputes the axis bounds; true when they moved. */
function updateDomain(state) {
  const run = state.run
  let start = run ? Date.parse(run.createdAt) : Infinity
  let end = run ? Date.parse(run.finishedAt ?? run.updatedAt) : -Infinity
  if (run && !run.finishedAt) end = Math.max(end, Date.now())
  for (const step of state.steps) {
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

const percent = (state, ms) => ((ms - state.start) / (state.end - state.start)) * 100

function stepRow(state, step, index) {
  const runId = state.run?.id ?? ''
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
    h('div', { role: 'cell', class: 'tl-track' }, bar(state, step)),
  )
}

function nameCell(state, step, runId) {
  const link = h('a', { href: stepHref(runId, step.seq), text: step.name, title: step.name })
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

function bar(state, step) {
  const started = Date.parse(step.startedAt)
  const open = step.status === 'waiting' || step.status === 'retrying'
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
