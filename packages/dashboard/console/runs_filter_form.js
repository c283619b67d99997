// The runs list's filter form: workflow, version, tag, singleton key, run id search, created
// range and search attributes. Submitting it (Enter or Apply) replaces these; status chips and
// the stuck filter are separate (view_runs.js keeps them across Apply; Clear drops the stuck
// filter).
import { h, uniqueId } from './dom.js'
import { ATTRIBUTE_OPS, formatAttr, parseAttr } from './filters.js'
import { fromLocalInput, toLocalInput } from './format.js'

const TEXT_FIELDS = [
  { key: 'q', label: 'Run id contains', placeholder: 'part of a run id' },
  { key: 'workflow', label: 'Workflow', list: true },
  { key: 'version', label: 'Version' },
  { key: 'tag', label: 'Tag' },
  { key: 'singletonKey', label: 'Singleton key', placeholder: 'with its workflow' },
]
const TIME_FIELDS = [
  { key: 'createdFrom', label: 'Created from' },
  { key: 'createdTo', label: 'Created before' },
]

/**
 * `{ element, fill(query), setWorkflows([{ workflow, count }]) }`; `onApply(params)` with the
 * form's filter, `onClear()` when the person clears it.
 */
export function filterForm({ onApply, onClear }) {
  const datalist = h('datalist', { id: uniqueId('workflows') })
  const inputs = new Map()
  const textFields = TEXT_FIELDS.map((spec) => labelled(spec, inputs, datalist.id, 'search'))
  const timeFields = TIME_FIELDS.map((spec) => labelled(spec, inputs, null, 'datetime-local'))
  const attributes = attributeEditor()
  const form = h(
    'form',
    { class: 'filters', role: 'search', 'aria-label': 'Filter runs' },
    h('div', { class: 'filter-grid' }, textFields, timeFields),
    attributes.element,
    datalist,
    h(
      'div',
      { class: 'filter-buttons' },
      h('button', { type: 'submit', class: 'button button-primary', text: 'Apply filters' }),
      h('button', {
        type: 'button',
        class: 'button',
        text: 'Clear',
        onclick: () => onClear(),
      }),
    ),
  )
  form.addEventListener('submit', (event) => {
    event.preventDefault()
    onApply(read(inputs, attributes))
  })
  const fill = (query) => {
    for (const [key, input] of inputs) {
      const value = query.get(key) ?? ''
      input.value = input.type === 'datetime-local' ? toLocalInput(value) : value
    }
    attributes.fill(query.getAll('attr'))
  }
  // The workflow facet: suggestions with their run counts for the other filters.
  const setWorkflows = (entries) =>
    datalist.replaceChildren(
      ...entries.map(({ workflow, count }) =>
        h('option', { value: workflow, label: `${workflow} (${count})` }),
      ),
    )
  return { element: form, fill, setWorkflows }
}

function labelled(spec, inputs, listId, type) {
  const id = uniqueId(`filter-${spec.key}`)
  const input = h('input', {
    id,
    type,
    name: spec.key,
    placeholder: spec.placeholder,
    list: spec.list ? listId : null,
    autocomplete: 'off',
  })
  inputs.set(spec.key, input)
  return h('div', { class: 'field' }, h('label', { for: id, text: spec.label }), input)
}

function read(inputs, attributes) {
  const params = new URLSearchParams()
  for (const [key, input] of inputs) {
    const raw = input.value.trim()
    const value = input.type === 'datetime-local' ? fromLocalInput(raw) : raw
    if (value !== '') params.set(key, value)
  }
  for (const attr of attributes.read()) params.append('attr', attr)
  return params
}

/** Rows of `name op value` for search-attribute filters. */
function attributeEditor() {
  const list = h('div', { class: 'attr-rows' })
  const add = h('button', {
    type: 'button',
    class: 'button button-small',
    text: 'Add attribute filter',
  })
  const element = h(
    'fieldset',
    { class: 'attr-filters' },
    h('legend', { text: 'Search attributes' }),
    list,
    add,
  )
  add.addEventListener('click', () =>
    list.append(attributeRow({ name: '', op: 'eq', value: '' }, true)),
  )
  const fill = (values) =>
    list.replaceChildren(...values.map((text) => attributeRow(parseAttr(text), false)))
  const read = () =>
    [...list.children]
      .map((row) => row.readAttr())
      .filter((attr) => attr.name !== '')
      .map(formatAttr)
  return { element, fill, read }
}

function attributeRow(attr, focus) {
  const nameId = uniqueId('attr-name')
  const name = h('input', { id: nameId, type: 'text', value: attr.name, autocomplete: 'off' })
  const op = h(
    'select',
    { 'aria-label': 'Comparison' },
    ATTRIBUTE_OPS.map((value) => h('option', { value, selected: value === attr.op, text: value })),
  )
  const value = h('input', {
    type: 'text',
    value: attr.value,
    'aria-label': 'Value',
    autocomplete: 'off',
  })
  const remove = h('button', { type: 'button', class: 'button button-small', text: 'Remove' })
  const row = h(
    'div',
    { class: 'attr-row' },
    h('label', { for: nameId, text: 'Name' }),
    name,
    op,
    value,
    remove,
  )
  remove.setAttribute('aria-label', 'Remove this attribute filter')
  remove.addEventListener('click', () => row.remove())
  row.readAttr = () => ({
    name: name.value.trim(),
    op: op.value,
    value: value.value,
    forcedString: attr.forcedString,
  })
  if (focus) queueMicrotask(() => name.focus())
  return row
}
