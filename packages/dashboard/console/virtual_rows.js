// Windowed rendering for long lists: only the rows in (and near) the visible part of a
// scrolling viewport exist in the DOM, so a run with 10,000 positions stays as cheap as one
// with 30. Rows have one fixed height; positions are set through the CSSOM (element.style),
// which the CSP's style-src 'self' allows, unlike style attributes in markup.
import { h } from './dom.js'

const OVERSCAN = 8

/**
 * `options`: `rowHeight` (px), `renderRow(index)` → element, `label` (accessible name).
 * Returns `{ element, setCount(n), invalidate(index?), scrollToIndex(i), renderNow(), rowAt(i),
 * dispose() }`.
 */
export function virtualRows({ rowHeight, renderRow, label }) {
  const spacer = h('div', { class: 'vr-spacer', role: 'rowgroup' })
  const viewport = h('div', { class: 'vr-viewport', tabindex: '0', 'aria-label': label }, spacer)
  const state = { count: 0, rows: new Map(), frame: 0 }
  const schedule = () => {
    if (state.frame !== 0) return
    state.frame = requestAnimationFrame(() => {
      state.frame = 0
      renderWindow(state, { viewport, spacer, rowHeight, renderRow })
    })
  }
  viewport.addEventListener('scroll', schedule, { passive: true })
  window.addEventListener('resize', schedule)
  return {
    element: viewport,
    setCount(count) {
      state.count = count
      spacer.style.height = `${count * rowHeight}px`
      schedule()
    },
    /** Re-renders row `index` in place (or every row when omitted) after its data changed. */
    invalidate(index) {
      const indexes = index === undefined ? [...state.rows.keys()] : [index]
      for (const at of indexes) {
        const old = state.rows.get(at)
        if (old === undefined) continue
        if (at >= state.count) {
          old.remove() // the list shrank (a wait ended): this row has nothing to show
          state.rows.delete(at)
          continue
        }
        const row = placeRow(renderRow(at), at, rowHeight)
        state.rows.set(at, row)
        old.replaceWith(row)
      }
      schedule()
    },
    scrollToIndex(index) {
      viewport.scrollTop = Math.max(0, index * rowHeight - viewport.clientHeight / 2)
      schedule()
    },
    renderNow: () => renderWindow(state, { viewport, spacer, rowHeight, renderRow }),
    /** The rendered row at `index`, or undefined when it is outside the window. */
    rowAt: (index) => state.rows.get(index),
    dispose: () => window.removeEventListener('resize', schedule),
  }
}

function renderWindow(state, { viewport, spacer, rowHeight, renderRow }) {
  const height = viewport.clientHeight || rowHeight * 20
  const first = Math.max(0, Math.floor(viewport.scrollTop / rowHeight) - OVERSCAN)
  const last = Math.min(
    state.count,
    Math.ceil((viewport.scrollTop + height) / rowHeight) + OVERSCAN,
  )
  for (const [index, row] of state.rows) {
    if (index >= first && index < last) continue
    // Never pull focus out from under the user, unless the row no longer exists at all.
    if (index < state.count && row.contains(document.activeElement)) continue
    row.remove()
    state.rows.delete(index)
  }
  for (let index = first; index < last; index += 1) {
    if (state.rows.has(index)) continue
    const row = placeRow(renderRow(index), index, rowHeight)
    state.rows.set(index, row)
    spacer.append(row)
  }
}

function placeRow(row, index, rowHeight) {
  row.classList.add('vr-row')
  row.style.transform = `translateY(${index * rowHeight}px)`
  return row
}
