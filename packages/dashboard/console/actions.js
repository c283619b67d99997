// Actions on one run, each behind a confirmation dialog. Buttons are offered by status; the
// server still decides (a refused action's E_* code shows in the dialog, nothing changes):
// Delete is offered on every finished run, and refused (E_RUN_NOT_DELETABLE, naming the run
// that blocks it) while its parent or one of its descendants is still open.
import { runPath } from './run_path.js'
import { post } from './api.js'
import { confirmDialog } from './dialogs.js'
import { h } from './dom.js'
import { OPEN_STATUSES } from './filters.js'
import { navigate, runHref } from './router.js'
import { announce } from './live.js'
import { actionsAllowed, READ_ONLY_NOTE } from './session.js'

const path = (run, action) => `${runPath(run.id)}/${action}`

/** Dialog specs by action; `when(run)` says whether the button is offered. */
const ACTIONS = [
  {
    label: 'Retry',
    when: (run) => run.status === 'failed' || run.status === 'dead',
    dialog: (run) => ({
      title: 'Retry this run?',
      description:
        run.status === 'dead'
          ? `Run ${run.id} is queued again with its recovery count at 0; its completed steps are not re-run.`
          : `Failed positions of run ${run.id} are reset and the run is queued again.`,
      confirmLabel: 'Retry run',
      onConfirm: () => post(path(run, 'retry'), {}),
    }),
    done: (result) => `Run queued again (${result.positionsReset ?? 0} positions reset).`,
  },
  {
    label: 'Retry with edited input',
    when: () => true,
    dialog: (run) => ({
      title: 'Retry with edited input',
      description: 'Starts a new run of the same workflow and version on this input.',
      fields: [
        { name: 'input', label: 'Input (JSON)', type: 'json', value: run.input, required: true },
      ],
      confirmLabel: 'Start new run',
      onConfirm: ({ input }) => post(path(run, 'retry-with-input'), { input }),
    }),
    opensNewRun: true,
  },
  {
    label: 'Fork from step…',
    when: () => true,
    dialog: (run, fromSeq) => forkDialog(run, fromSeq),
    opensNewRun: true,
  },
  {
    label: 'Cancel',
    when: (run) => OPEN_STATUSES.includes(run.status),
    danger: true,
    dialog: (run) => cancelDialog(run, false),
    done: () => 'Run cancelled.',
  },
  {
    label: 'Cancel with compensation',
    when: (run) => OPEN_STATUSES.includes(run.status),
    danger: true,
    dialog: (run) => cancelDialog(run, true),
    done: () => 'Run cancelled; compensations run.',
  },
  {
    label: 'Delete',
    when: (run) => !OPEN_STATUSES.includes(run.status),
    danger: true,
    dialog: (run) => ({
      title: 'Delete this run?',
      description: [
        h('p', {
          text: `Run ${run.id}, its child runs and everything recorded about them (steps, signals, tags, search attributes) are deleted for good. It cannot be undone.`,
        }),
        h('p', {
          class: 'field-hint',
          text: 'Refused while its parent or one of its children is still open.',
        }),
      ],
      confirmLabel: 'Delete run',
      danger: true,
      onConfirm: () => post(path(run, 'delete'), {}),
    }),
    done: (result, run) =>
      `Run ${run.id} deleted${result.runs > 1 ? ` with ${result.runs - 1} descendant run(s)` : ''}.`,
    deletes: true,
  },
  {
    label: 'Send signal',
    when: (run) => OPEN_STATUSES.includes(run.status),
    dialog: (run) => ({
      title: 'Send a signal',
      fields: [
        {
          name: 'name',
          label: 'Signal name',
          type: 'text',
          required: true,
          value: signalName(run),
        },
        { name: 'payload', label: 'Payload (JSON, optional)', type: 'json' },
        { name: 'signalId', label: 'Signal id (optional, deduplicates)', type: 'text' },
      ],
      confirmLabel: 'Send signal',
      onConfirm: (values) => post(path(run, 'signal'), values),
    }),
    done: (result) => (result.duplicate ? 'Duplicate signal ignored.' : 'Signal sent.'),
  },
  {
    label: 'Continue breakpoint',
    when: (run) => (run.waits ?? []).some((wait) => wait.kind === 'breakpoint'),
    dialog: (run) => ({
      title: 'Continue from the breakpoint',
      description: `The run waits at breakpoint “${breakpointName(run)}”.`,
      fields: [
        {
          name: 'label',
          label: 'Breakpoint label (optional)',
          type: 'text',
          value: breakpointName(run),
        },
        { name: 'payload', label: 'Note for the run (JSON, optional)', type: 'json' },
      ],
      confirmLabel: 'Continue run',
      onConfirm: (values) => post(path(run, 'continue'), values),
    }),
    done: () => 'Run continued.',
  },
]

function forkDialog(run, fromSeq) {
  return {
    title: 'Fork this run',
    description:
      'Starts a new run of the same workflow and version. Positions before the chosen one reuse this run’s results; from it on, the new run executes again.',
    fields: [
      {
        name: 'fromSeq',
        label: 'Run again from position',
        type: 'number',
        min: 0,
        value: fromSeq ?? 0,
        required: true,
      },
      { name: 'input', label: 'Input (JSON, optional: this run’s input when empty)', type: 'json' },
    ],
    confirmLabel: 'Fork run',
    onConfirm: (values) => post(path(run, 'fork'), values),
  }
}

function cancelDialog(run, compensate) {
  return {
    title: compensate ? 'Cancel and compensate?' : 'Cancel this run?',
    description: compensate
      ? 'The run stops and the compensations of its completed saga steps run, newest first.'
      : 'The run stops where it is. Completed steps are not undone.',
    fields: [{ name: 'reason', label: 'Reason (optional)', type: 'text' }],
    confirmLabel: compensate ? 'Cancel and compensate' : 'Cancel run',
    danger: true,
    onConfirm: ({ reason }) => post(path(run, 'cancel'), { reason, compensate }),
  }
}

function signalName(run) {
  return (run.waits ?? []).find((wait) => wait.kind === 'signal')?.name ?? ''
}

function breakpointName(run) {
  return (run.waits ?? []).find((wait) => wait.kind === 'breakpoint')?.name ?? ''
}

/**
 * The action buttons for `run`. `onChanged()` runs after an action that changed this run,
 * `onChanged({ deleted })` after Delete (`deleted`: what was said about it); actions that
 * start a new run navigate to it. Read-only dashboards answer 403 in the dialog.
 */
export function runActions(run, onChanged) {
  if (!actionsAllowed()) return h('p', { class: 'muted', text: READ_ONLY_NOTE })
  const buttons = ACTIONS.filter((action) => action.when(run)).map((action) =>
    h('button', {
      type: 'button',
      class: action.danger ? 'button button-danger' : 'button',
      text: action.label,
      onclick: () => void perform(action, run, onChanged),
    }),
  )
  return h('div', { class: 'toolbar', role: 'group', 'aria-label': 'Run actions' }, buttons)
}

/** Opens the fork dialog preset to `fromSeq` (the step page's “Fork from here”). */
export function forkFrom(run, fromSeq) {
  const fork = ACTIONS.find((action) => action.label === 'Fork from step…')
  return perform(fork, run, () => {}, fromSeq)
}

async function perform(action, run, onChanged, argument) {
  const result = await confirmDialog(action.dialog(run, argument))
  if (result === null) return
  if (action.opensNewRun && typeof result.runId === 'string') {
    announce(`Started run ${result.runId}.`)
    navigate(runHref(result.runId))
    return
  }
  const said = action.done?.(result, run) ?? 'Done.'
  announce(said)
  onChanged(action.deletes ? { deleted: said } : undefined)
}
