// Bulk retry / cancel over the runs list's current filter. A dry run first counts what would
// change, so the dialog shows the number and whether the dashboard's cap cut it short.
import { post } from './api.js'
import { confirmDialog } from './dialogs.js'
import { h } from './dom.js'
import { filterObject } from './filters.js'
import { sortLabel, sortOf } from './run_sort.js'
import { announce } from './live.js'
import { actionsAllowed } from './session.js'

// Asks for as many as allowed; the server clamps to its bulkLimit (default 1000) and says
// `truncated` when more runs matched than it would touch.
const REQUESTED_LIMIT = 10_000

const KINDS = {
  retry: { label: 'Retry failed…', verb: 'retried', which: 'failed and dead runs' },
  cancel: { label: 'Cancel open…', verb: 'cancelled', which: 'open runs' },
}

/** The bulk action buttons for the list whose filter is `getQuery()`. */
export function bulkActions(getQuery, onDone) {
  if (!actionsAllowed()) return null
  return h(
    'div',
    { class: 'toolbar', role: 'group', 'aria-label': 'Bulk actions over the current filter' },
    Object.entries(KINDS).map(([kind, spec]) =>
      h('button', {
        type: 'button',
        class: kind === 'cancel' ? 'button button-danger' : 'button',
        text: spec.label,
        onclick: () => void run(kind, getQuery(), onDone),
      }),
    ),
  )
}

async function run(kind, query, onDone) {
  const spec = KINDS[kind]
  const filter = filterObject(query)
  // With a cap, the list's order decides which runs are taken: the first ones it shows.
  const sort = sortOf(query)
  let preview
  try {
    preview = await post(`bulk/${kind}`, { filter, sort, limit: REQUESTED_LIMIT, dryRun: true })
  } catch (error) {
    announce(`Could not count the runs: ${error.message}`)
    return
  }
  const result = await confirmDialog({
    title: `Bulk ${kind}`,
    description: describePreview(spec, preview, sort),
    confirmLabel: `${kind === 'retry' ? 'Retry' : 'Cancel'} ${preview.matched} runs`,
    danger: kind === 'cancel',
    fields: kind === 'cancel' ? [{ name: 'reason', label: 'Reason (optional)', type: 'text' }] : [],
    onConfirm: (values) =>
      post(`bulk/${kind}`, { filter, sort, limit: REQUESTED_LIMIT, reason: values.reason }),
  })
  if (result === null) return
  const failed = result.failed?.length ?? 0
  announce(`${result.applied} runs ${spec.verb}${failed > 0 ? `, ${failed} refused` : ''}.`)
  onDone()
}

function describePreview(spec, preview, sort) {
  const capNote = preview.truncated
    ? h(
        'p',
        { class: 'notice notice-warning' },
        `More runs match than the dashboard's bulk cap: only the first ${preview.matched} in list order (${sortLabel(sort)}) will be ${spec.verb}. Run it again for the rest.`,
      )
    : null
  return [
    h(
      'p',
      {},
      `${preview.matched} ${spec.which} match the current filter and will be ${spec.verb}.`,
    ),
    h('p', { class: 'field-hint' }, `Cap per request: ${capOf(preview)}.`),
    capNote,
  ]
}

// The clamped limit when the server reports it; otherwise what the preview shows of it.
function capOf(preview) {
  if (typeof preview.limit === 'number') return `${preview.limit} runs`
  return preview.truncated ? `${preview.matched} runs (reached)` : 'not reached'
}
