// Form fields for dialogs: label, control, and an inline error tied to the control with
// aria-describedby. A `json` field is a textarea whose text must parse before anything is sent.
import { h, uniqueId } from './dom.js'

/**
 * `spec`: `{ name, label, type: 'text' | 'number' | 'json' | 'checkbox', value, required,
 * hint, min, max }`. Returns `{ spec, element, control, error }`.
 */
export function buildField(spec) {
  const id = uniqueId(`field-${spec.name}`)
  const errorId = `${id}-error`
  const control = buildControl(spec, id, errorId)
  const error = h('p', { id: errorId, class: 'field-error' })
  const hint = spec.hint ? h('p', { class: 'field-hint', text: spec.hint }) : null
  const label = h('label', { for: id, text: spec.label })
  const element =
    spec.type === 'checkbox'
      ? h('div', { class: 'field field-checkbox' }, control, label, hint, error)
      : h('div', { class: 'field' }, label, control, hint, error)
  return { spec, element, control, error }
}

function buildControl(spec, id, errorId) {
  const common = { id, name: spec.name, 'aria-describedby': errorId }
  if (spec.type === 'json') {
    const text = spec.value === undefined ? '' : JSON.stringify(spec.value, null, 2)
    return h(
      'textarea',
      { ...common, class: 'json-editor', rows: spec.required ? 10 : 5, spellcheck: 'false' },
      text,
    )
  }
  if (spec.type === 'checkbox') {
    return h('input', { ...common, type: 'checkbox', checked: spec.value === true })
  }
  const type = spec.type === 'number' ? 'number' : 'text'
  return h('input', {
    ...common,
    type,
    value: spec.value ?? '',
    min: spec.min,
    max: spec.max,
    required: spec.required === true,
    autocomplete: 'off',
  })
}

/** Reads and validates every field: `{ ok: true, values }` or `{ ok: false }` (errors shown). */
export function readFields(fields) {
  const values = {}
  let firstInvalid = null
  for (const field of fields) {
    const outcome = readField(field)
    showError(field, outcome.error)
    if (outcome.error && firstInvalid === null) firstInvalid = field.control
    else values[field.spec.name] = outcome.value
  }
  if (firstInvalid !== null) {
    firstInvalid.focus()
    return { ok: false }
  }
  return { ok: true, values }
}

function readField({ spec, control }) {
  if (spec.type === 'checkbox') return { value: control.checked }
  const text = control.value.trim()
  if (text === '') {
    return spec.required ? { error: `${spec.label} is required.` } : { value: undefined }
  }
  if (spec.type === 'json') return parseJson(text)
  if (spec.type === 'number') return parseInteger(text, spec)
  return { value: text }
}

function parseJson(text) {
  try {
    return { value: JSON.parse(text) }
  } catch (error) {
    return { error: `Not valid JSON: ${error.message}` }
  }
}

function parseInteger(text, spec) {
  const value = Number(text)
  const inRange =
    Number.isInteger(value) &&
    (spec.min === undefined || value >= spec.min) &&
    (spec.max === undefined || value <= spec.max)
  if (inRange) return { value }
  const range = spec.max === undefined ? '' : ` between ${spec.min ?? 0} and ${spec.max}`
  return { error: `Enter a whole number${range}.` }
}

function showError(field, message) {
  field.error.textContent = message ?? ''
  if (message) field.control.setAttribute('aria-invalid', 'true')
  else field.control.removeAttribute('aria-invalid')
}
