// Small reusable pieces: status badges, copy buttons, JSON blocks, notices.
import { h } from './dom.js'
import { formatJson } from './format.js'
import { runsHref } from './router.js'

/** A run or step status as a badge (colour from CSS, the word always present for non-sighted users). */
export function statusBadge(status) {
  return h('span', { class: `status status-${safeToken(status)}`, text: status })
}

/** Reduces a server-provided word to a CSS class-safe token. */
export function safeToken(text) {
  return String(text).replace(/[^a-z0-9_-]/gi, '') || 'unknown'
}

/** A button that copies `getText()` to the clipboard and says so. */
export function copyButton(label, getText) {
  const button = h('button', { type: 'button', class: 'button button-small', text: label })
  button.addEventListener('click', () => void copy(button, label, getText()))
  return button
}

async function copy(button, label, text) {
  try {
    await navigator.clipboard.writeText(text)
    button.textContent = 'Copied'
  } catch {
    button.textContent = 'Copy failed: select the text'
  }
  setTimeout(() => (button.textContent = label), 1500)
}

/** A titled, formatted JSON block with a copy button. */
export function jsonBlock(title, value) {
  const text = formatJson(value)
  const headingId = `json-${safeToken(title)}-${Math.random().toString(36).slice(2, 8)}`
  return h(
    'section',
    { class: 'json-block', 'aria-labelledby': headingId },
    h(
      'div',
      { class: 'json-block-header' },
      h('h3', { id: headingId, text: title }),
      copyButton(`Copy ${title.toLowerCase()}`, () => text),
    ),
    h('pre', { class: 'json', tabindex: '0', text }),
  )
}

/** An error or notice paragraph; role=alert for errors so they are read out. */
export function notice(text, kind = 'info') {
  return h('p', { class: `notice notice-${kind}`, role: kind === 'error' ? 'alert' : null, text })
}

/** A definition list from `[term, value]` pairs (value: node or text); null values skipped. */
export function facts(pairs) {
  return h(
    'dl',
    { class: 'facts' },
    pairs
      .filter(([, value]) => value !== null && value !== undefined && value !== '')
      .map(([term, value]) =>
        h('div', { class: 'fact' }, h('dt', { text: term }), h('dd', {}, value)),
      ),
  )
}

/**
 * The trail from the runs list to the current page: `crumbs` are `[text, href?, mono?]`; the
 * last one is the current page (no link, aria-current).
 */
export function breadcrumbs(crumbs) {
  const trail = [['Runs', runsHref()], ...crumbs]
  return h(
    'nav',
    { class: 'breadcrumbs', 'aria-label': 'Breadcrumbs' },
    trail.map(([text, href, mono], index) => {
      const last = index === trail.length - 1
      const className = mono ? 'mono' : null
      const crumb = last
        ? h('span', { class: className, 'aria-current': 'page', text })
        : h('a', { class: className, href, text })
      return index === 0 ? crumb : [' › ', crumb]
    }),
  )
}
