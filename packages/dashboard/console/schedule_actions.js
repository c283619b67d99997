// Actions on one schedule — pause, resume, trigger — each behind a confirmation dialog, like
// the run actions (actions.js). Buttons are offered by state; the server still decides (a
// refused action's E_* code shows in the dialog, nothing changes).
import { post } from './api.js'
import { confirmDialog } from './dialogs.js'
import { h } from './dom.js'
import { announce } from './live.js'
import { schedulePath } from './run_path.js'
import { actionsAllowed, READ_ONLY_NOTE } from './session.js'

const path = (schedule, action) => `${schedulePath(schedule.id)}/${action}`

/** Dialog specs by action; `when(schedule)` says whether the button is offered. */
const ACTIONS = [
  {
    label: 'Pause',
    when: (schedule) => !schedule.paused,
    dialog: (schedule) => ({
      title: 'Pause this schedule?',
      description: `Schedule ${schedule.id} starts no run until it is resumed. Runs it started go on.`,
      confirmLabel: 'Pause schedule',
      onConfirm: () => post(path(schedule, 'pause'), {}),
    }),
    done: (_, schedule) => `Schedule ${schedule.id} paused.`,
  },
  {
    label: 'Resume',
    when: (schedule) => schedule.paused,
    dialog: (schedule) => ({
      title: 'Resume this schedule?',
      description: `Schedule ${schedule.id} fires again from now on; the windows missed while it was paused are not run.`,
      confirmLabel: 'Resume schedule',
      onConfirm: () => post(path(schedule, 'resume'), {}),
    }),
    done: (_, schedule) => `Schedule ${schedule.id} resumed.`,
  },
  {
    label: 'Trigger',
    when: () => true,
    dialog: (schedule) => ({
      title: 'Start a run now?',
      description: `Starts one run of ${schedule.workflow} now, outside the schedule's windows and its overlap policy.`,
      confirmLabel: 'Start run',
      onConfirm: () => post(path(schedule, 'trigger'), {}),
    }),
    done: (result) => `Started run ${result.runId}.`,
  },
]

/**
 * The action buttons for `schedule`; `onChanged(focusKey)` runs after an action, with the key
 * of the button that opened it. Read-only dashboards get no buttons.
 */
export function scheduleActions(schedule, onChanged) {
  if (!actionsAllowed()) return null
  const buttons = ACTIONS.filter((action) => action.when(schedule)).map((action) => {
    const focusKey = `${action.label}:${schedule.id}`
    return h('button', {
      type: 'button',
      class: 'button button-small',
      text: action.label,
      'aria-label': `${action.label} schedule ${schedule.id}`,
      dataset: { focusKey },
      onclick: () => void perform(action, schedule, () => onChanged(focusKey)),
    })
  })
  return h(
    'div',
    { class: 'toolbar toolbar-tight', role: 'group', 'aria-label': `Actions of ${schedule.id}` },
    buttons,
  )
}

/** Whether the schedules table has an Actions column, and what is said instead. */
export const scheduleActionsNote = () => (actionsAllowed() ? null : READ_ONLY_NOTE)

async function perform(action, schedule, onChanged) {
  const result = await confirmDialog(action.dialog(schedule))
  if (result === null) return
  announce(action.done(result, schedule))
  onChanged()
}
