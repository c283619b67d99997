// The "Stuck" quick filter: open runs an engine could have claimed more than N minutes ago and
// none did (a pending run nobody picked up, a due timer nobody fired, an expired lease). It is
// the API's own filter, status=pending,running,waiting and claimableBefore=now−N min, written
// into the address like any other, so the link shows the same runs (as of when it was made).
import { h, uniqueId } from './dom.js'
import { filterParams } from './filters.js'

export const STUCK_STATUSES = ['pending', 'running', 'waiting']
const DEFAULT_MINUTES = 5

/** `query` with the stuck filter for `minutes` at `now` (ms), its other filters kept. */
export function stuckQuery(query, minutes, now) {
  const params = filterParams(query)
  params.delete('status')
  for (const status of STUCK_STATUSES) params.append('status', status)
  params.set('claimableBefore', new Date(now - minutes * 60_000).toISOString())
  return params
}

/** The minutes a stuck filter in `query` stands for at `now`, or null when it has none. */
export function stuckMinutes(query, now) {
  const before = Date.parse(query.get('claimableBefore') ?? '')
  if (Number.isNaN(before)) return null
  return Math.max(0, Math.round((now - before) / 60_000))
}

/** `{ element, fill(query) }`; `onApply(minutes)` when the person asks for stuck runs. */
export function stuckFilter(onApply) {
  const id = uniqueId('stuck-minutes')
  const minutes = h('input', {
    id,
    type: 'number',
    min: '0',
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
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    const value = Number(minutes.value)
    onApply(Number.isFinite(value) && value >= 0 ? value : DEFAULT_MINUTES)
  })
  const fill = (query) => {
    minutes.value = String(stuckMinutes(query, Date.now()) ?? DEFAULT_MINUTES)
  }
  return { element: form, fill }
}
