// Status filter chips with facet counts. Each chip is a toggle button (aria-pressed), so it
// is reachable by keyboard and announced with its state and count.
import { h } from './dom.js'
import { STATUSES } from './filters.js'

/** `{ element, render(selected, counts) }`; `onToggle(status)` when a chip is pressed. */
export function statusChips(onToggle) {
  const element = h('div', { class: 'chips', role: 'group', 'aria-label': 'Filter by status' })
  const buttons = new Map(
    STATUSES.map((status) => {
      const count = h('span', { class: 'chip-count', text: '…' })
      const button = h(
        'button',
        {
          type: 'button',
          class: `chip chip-${status}`,
          'aria-pressed': 'false',
          onclick: () => onToggle(status),
        },
        h('span', { text: status }),
        count,
      )
      element.append(button)
      return [status, { button, count }]
    }),
  )
  const render = (selected, counts) => {
    for (const [status, { button, count }] of buttons) {
      button.setAttribute('aria-pressed', String(selected.includes(status)))
      if (counts) count.textContent = String(counts[status] ?? 0)
    }
  }
  return { element, render }
}
