// Live updates over EventSource. The browser reconnects by itself (the server sends
// `retry: 2000`); we only parse events and close the stream when the view goes away.
import { apiUrl } from './api.js'

/**
 * Opens `GET <base>/api/<path>` as an event stream and calls `handlers[eventName](data)` with
 * each event's parsed JSON. `handlers.onStateChange(connected)` hears connection changes.
 * Returns a function that closes the stream.
 */
export function openStream(path, params, handlers) {
  const source = new EventSource(apiUrl(path, params))
  for (const [name, handler] of Object.entries(handlers)) {
    if (name === 'onStateChange') continue
    source.addEventListener(name, (event) => dispatch(handler, event))
  }
  source.addEventListener('open', () => handlers.onStateChange?.(true))
  source.addEventListener('error', () => handlers.onStateChange?.(false))
  return () => source.close()
}

function dispatch(handler, event) {
  let data
  try {
    data = event.data === '' ? null : JSON.parse(event.data)
  } catch {
    return // A malformed event is dropped; the next one or a reload brings the state.
  }
  handler(data)
}

const announcer = () => document.getElementById('live-region')
let pending = []
let timer = null

/**
 * Tells screen-reader users about a live change through the page's aria-live region. Bursts
 * are batched (one announcement per second at most) so a busy list does not drown them.
 */
export function announce(message) {
  pending.push(message)
  if (timer !== null) return
  timer = setTimeout(() => {
    const region = announcer()
    const text = pending.length > 3 ? `${pending.length} updates.` : pending.join(' ')
    pending = []
    timer = null
    if (region) region.textContent = text
  }, 1000)
}
