// The "Stuck" quick filter: open runs an engine could have claimed more than N minutes ago and
// none did (a pending run nobody picked up, a due timer nobody fired, an expired lease). It
// writes the API's `stuckFor=N` into the address and nothing else: the server resolves it to
// pending, running, waiting and blocked runs claimable before "now − N minutes" on the engine's clock,
// at every load, so a skewed laptop clock changes nothing and a link keeps meaning N minutes.
import { h, uniqueId } from './dom.js'
import { filterParams } from './filters.js'

const DEFAULT_MINUTES = 5
/** The API's limit (a year of minutes). */
export const MAX_STUCK_MINUTES = 525_600

/** `query` with the stuck filter for `minutes`; statuses and a hand-set cutoff give way to it. */
export function stuckQuery(query, minutes) {
  const params = withoutStuck(query)
  params.delete('status')
  params.set('stuckFor', String(minutes))
  return params
}

/** `query`'s filter without the stuck filter or a cutoff set by hand. */
export function withoutStuck(query) {
  const params = filterParams(query)
  params.delete('stuckFor')
  params.delete('claimableBefore')
  return params
}

/** The minutes of `text` (the input's value; empty is the default), or null when refused. */
export function parseMinutes(text) {
  if (text.trim() === '') return DEFAULT_MINUTES
  const minutes = Number(text)
  return Number.isInteger(minutes) && minutes >= 0 && minutes <= MAX_STUCK_MINUTES ? minutes : null
}

/** `{ element, fill(query) }`; `onApply(minutes)` when the person asks for stuck runs. */
export function stuckFilter(onApply) {
  const id = uniqueId('stuck-minutes')
  const minutes = h('input', {
    id,
    type: 'number',
    min: '0',
    max: String(MAX_STUCK_MINUTES),
    step: '1',
    value: String(DEFAULT_MINUTES),
    class: 'stuck-minutes',
  })
  const form = h(
    'form',
    { class: 'stuck-filter', 'aria-label': 'Stuck runs' },
    h('label', { for: id, text: 'Stuck: open and claimable for more than' }),
    minutes,
    h('span', { text: 'minutes' }),
    h('button', { type: 'submit', class: 'button', text: 'Show stuck runs' }),
  )
  minutes.addEventListener('input', () => minutes.setCustomValidity(''))
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    // The browser's min/max check stops most bad values; this one covers the rest.
    const value = parseMinutes(minutes.value)
    if (value === null) {
      minutes.setCustomValidity(`Whole minutes from 0 to ${MAX_STUCK_MINUTES}.`)
      minutes.reportValidity()
      return
    }
    onApply(value)
  })
  const fill = (query) => {
    minutes.setCustomValidity('')
    minutes.value = query.get('stuckFor') ?? String(DEFAULT_MINUTES)
  }
  return { element: form, fill }
}
