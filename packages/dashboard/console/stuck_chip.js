// The active stuck filter, shown as a chip with a remove button: the filter form has no field
// for it (a minute-precision time field would shift a cutoff on every Apply), so this is where
// a person sees it and drops it.
import { h } from './dom.js'
import { formatTime } from './format.js'

/** `{ element, render(query) }`; `onRemove()` when the person removes the stuck filter. */
export function stuckChip(onRemove) {
  const label = h('span')
  const remove = h('button', {
    type: 'button',
    class: 'button button-small',
    text: 'Remove',
    onclick: () => onRemove(),
  })
  const element = h('div', { class: 'stuck-chip', hidden: true }, label, remove)
  const render = (query) => {
    const text = chipText(query)
    element.hidden = text === null
    label.textContent = text ?? ''
    remove.setAttribute('aria-label', `Remove the filter ${text ?? ''}`)
  }
  return { element, render }
}

function chipText(query) {
  const minutes = query.get('stuckFor')
  if (minutes) return `Stuck > ${minutes} min`
  const before = query.get('claimableBefore')
  return before ? `Claimable before ${formatTime(before)}` : null
}
