// DOM building without HTML strings. Every text value goes through textContent or a DOM
// attribute, never innerHTML, so a workflow name, input or error that contains markup is shown
// as the characters it is. The page's CSP (script-src 'self'; style-src 'self') is the second
// line of defence; this module is the first.

/**
 * Creates an element. `props`: `class`, `text`, `on<Event>` handlers, `dataset` (object),
 * boolean attributes (true → present, false/null/undefined → absent), other attributes as
 * strings. Children: nodes, strings (text nodes), arrays, or null/false (skipped).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props ?? {})) applyProp(el, key, value)
  append(el, children)
  return el
}

function applyProp(el, key, value) {
  if (value === undefined || value === null || value === false) return
  if (key === 'class') el.className = value
  else if (key === 'text') el.textContent = String(value)
  else if (key === 'dataset') Object.assign(el.dataset, value)
  else if (key.startsWith('on') && typeof value === 'function') {
    el.addEventListener(key.slice(2).toLowerCase(), value)
  } else if (key === 'value' && 'value' in el) el.value = String(value)
  else if (key === 'style') throw new Error('inline styles are refused by the CSP: use a class')
  else el.setAttribute(key, value === true ? '' : String(value))
}

/** Appends children (nodes, strings, nested arrays; null/false skipped). */
export function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue
    parent.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
  return parent
}

/** Removes every child of `el`. */
export function clear(el) {
  el.replaceChildren()
  return el
}

/** Replaces the children of `el` with `children`. */
export function replace(el, ...children) {
  el.replaceChildren()
  return append(el, children)
}

/** Returns the element with `id`, failing loudly when the page shell lacks it. */
export function byId(id) {
  const el = document.getElementById(id)
  if (el === null) throw new Error(`missing element #${id}`)
  return el
}

let counter = 0
/** A document-unique id with `prefix`. */
export function uniqueId(prefix) {
  counter += 1
  return `${prefix}-${counter}`
}

/**
 * Moves focus to `heading` when a view finished loading while focus still sat on <main>
 * (where the router put it before the heading existed); never steals it from a control.
 */
export function takeFocusFromMain(heading) {
  const active = document.activeElement
  if (heading && (active === null || active.id === 'main')) heading.focus()
}
