// Hash routing: the console is one static page, so routes live after '#'. That keeps every
// view linkable and bookmarkable (the runs list's filters are in the URL) without the server
// knowing the console's routes, and works under any mount path.
//
//   #/runs?status=failed&workflow=checkout   runs list with filters
//   #/runs/<id>                              run detail
//   #/runs/<id>/steps/<seq>                  step detail
//   #/workers                                the remote-step fleet
//   #/queues                                 the named queues
//   #/singletons?workflow=checkout           singleton keys with open runs
//   #/schedules?after=<id>                   schedules, a page at a time
//   #/login?next=<hash>                      login (token mode)

/** Parses a location hash into `{ name, params, query }`; unknown paths → `notFound`. */
export function parseRoute(hash) {
  const raw = hash.replace(/^#/, '') || '/runs'
  const [path, search = ''] = splitOnce(raw, '?')
  const query = new URLSearchParams(search)
  const parts = path
    .split('/')
    .filter((part) => part !== '')
    .map(decodeSegment)
  return { ...matchParts(parts), query }
}

function matchParts(parts) {
  const [first, id, third, seq] = parts
  if (parts.length === 0) return { name: 'runs', params: {} }
  if (first === 'runs' && parts.length === 1) return { name: 'runs', params: {} }
  if (first === 'runs' && parts.length === 2) return { name: 'run', params: { id } }
  if (first === 'runs' && third === 'steps' && parts.length === 4 && /^\d+$/.test(seq)) {
    return { name: 'step', params: { id, seq: Number(seq) } }
  }
  if (first === 'workers' && parts.length === 1) return { name: 'workers', params: {} }
  if (first === 'queues' && parts.length === 1) return { name: 'queues', params: {} }
  if (first === 'singletons' && parts.length === 1) return { name: 'singletons', params: {} }
  if (first === 'schedules' && parts.length === 1) return { name: 'schedules', params: {} }
  if (first === 'login' && parts.length === 1) return { name: 'login', params: {} }
  return { name: 'notFound', params: {} }
}

function splitOnce(text, separator) {
  const at = text.indexOf(separator)
  return at === -1 ? [text, ''] : [text.slice(0, at), text.slice(at + 1)]
}

function decodeSegment(segment) {
  try {
    return decodeURIComponent(segment)
  } catch {
    return segment
  }
}

/** The hash of the runs list with `query` (URLSearchParams). */
export function runsHref(query) {
  const search = query ? query.toString() : ''
  return search === '' ? '#/runs' : `#/runs?${search}`
}

/** The hash of the Singletons page with `query` (URLSearchParams: workflow, cursor). */
export function singletonsHref(query) {
  const search = query ? query.toString() : ''
  return search === '' ? '#/singletons' : `#/singletons?${search}`
}

/** The hash of the Schedules page with `query` (URLSearchParams: after). */
export function schedulesHref(query) {
  const search = query ? query.toString() : ''
  return search === '' ? '#/schedules' : `#/schedules?${search}`
}

/** The hash of a run's detail page. */
export function runHref(runId) {
  return `#/runs/${encodeURIComponent(runId)}`
}

/** The hash of a step's detail page. */
export function stepHref(runId, seq) {
  return `#/runs/${encodeURIComponent(runId)}/steps/${seq}`
}

/** The hash of the login page, returning to `next` afterwards. */
export function loginHref(next) {
  return `#/login?${new URLSearchParams({ next }).toString()}`
}

/** Goes to `hash`; `replace` keeps the history entry (filter edits). */
export function navigate(hash, { replace = false } = {}) {
  if (location.hash === hash) return
  if (replace) history.replaceState(null, '', hash)
  else history.pushState(null, '', hash)
  window.dispatchEvent(new HashChangeEvent('hashchange'))
}

/** Calls `render(route)` now and on every hash change. */
export function startRouter(render) {
  const run = () => render(parseRoute(location.hash))
  window.addEventListener('hashchange', run)
  run()
}
