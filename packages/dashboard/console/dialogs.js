// Confirmation dialogs on <dialog>.showModal(): the browser keeps focus inside and closes on
// Escape; we focus the first field (or Cancel, so Enter never confirms by accident), run the
// action while the dialog stays open (its error is shown there, nothing is lost), and give
// focus back to the control that opened it.
import { h, uniqueId } from './dom.js'
import { buildField, readFields } from './dialog_fields.js'

/**
 * Shows a confirmation dialog. `options`: `title`, `description` (nodes/strings), `fields`
 * (see dialog_fields.js), `confirmLabel`, `danger` (styles the confirm button), and
 * `onConfirm(values)` — awaited; a throw keeps the dialog open showing the error. Resolves
 * with onConfirm's result, or null when cancelled.
 */
export function confirmDialog(options) {
  const opener = document.activeElement
  return new Promise((resolve) => {
    const parts = buildDialog(options)
    let result = null
    parts.form.addEventListener('submit', (event) => {
      event.preventDefault()
      void submit(parts, options).then((outcome) => {
        if (!outcome.done) return
        result = outcome.value
        parts.dialog.close()
      })
    })
    parts.cancel.addEventListener('click', () => parts.dialog.close())
    parts.dialog.addEventListener('close', () => {
      parts.dialog.remove()
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
      resolve(result)
    })
    document.body.append(parts.dialog)
    parts.dialog.showModal()
    ;(parts.firstField ?? parts.cancel).focus()
  })
}

async function submit(parts, options) {
  parts.error.textContent = ''
  const values = readFields(parts.fields)
  if (!values.ok) return { done: false }
  parts.confirm.disabled = true
  parts.form.setAttribute('aria-busy', 'true')
  try {
    return { done: true, value: await options.onConfirm(values.values) }
  } catch (error) {
    parts.error.textContent = describeError(error)
    return { done: false }
  } finally {
    parts.confirm.disabled = false
    parts.form.removeAttribute('aria-busy')
  }
}

function describeError(error) {
  const code = typeof error?.code === 'string' ? `${error.code}: ` : ''
  return `${code}${error?.message ?? String(error)}`
}

function buildDialog(options) {
  const titleId = uniqueId('dialog-title')
  const fields = (options.fields ?? []).map(buildField)
  const error = h('p', { class: 'dialog-error', role: 'alert' })
  const cancel = h('button', { type: 'button', class: 'button', text: 'Cancel' })
  const confirmClass = options.danger ? 'button button-danger' : 'button button-primary'
  const confirm = h('button', { type: 'submit', class: confirmClass, text: options.confirmLabel })
  const form = h(
    'form',
    { method: 'dialog', class: 'dialog-form', novalidate: true },
    h('h2', { id: titleId, class: 'dialog-title', text: options.title }),
    h('div', { class: 'dialog-description' }, options.description ?? []),
    fields.map((field) => field.element),
    error,
    h('div', { class: 'dialog-buttons' }, cancel, confirm),
  )
  const dialog = h('dialog', { class: 'dialog', 'aria-labelledby': titleId }, form)
  return { dialog, form, fields, error, cancel, confirm, firstField: fields[0]?.control }
}
