// The runs list's filters. The URL (after '#/runs?') uses the API's own query keys, so the
// filter a person sees, the link they share and the request the console sends are one thing.

export const STATUSES = [
  'queued',
  'pending',
  'running',
  'waiting',
  'blocked',
  'completed',
  'failed',
  'cancelled',
  'continued',
  'dead',
  'parked',
]
export const OPEN_STATUSES = ['queued', 'pending', 'running', 'waiting', 'blocked', 'parked']
export const ATTRIBUTE_OPS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte']
const SINGLE_KEYS = [
  'workflow',
  'version',
  'tag',
  'q',
  'createdFrom',
  'createdTo',
  'claimableBefore',
  'stuckFor',
  'singletonKey',
]
const REPEATED_KEYS = ['status', 'attr']

/** The filter part of a query (no cursor, no unknown keys), in a stable order. */
export function filterParams(query) {
  const params = new URLSearchParams()
  for (const key of REPEATED_KEYS) {
    for (const value of query.getAll(key)) if (value !== '') params.append(key, value)
  }
  for (const key of SINGLE_KEYS) {
    const value = query.get(key)
    if (value !== null && value !== '') params.set(key, value)
  }
  return params
}

/** The filter as the JSON object bulk actions take (`{ status: [...], workflow, ... }`). */
export function filterObject(query) {
  const params = filterParams(query)
  const filter = {}
  for (const key of REPEATED_KEYS) {
    const values = params.getAll(key)
    if (values.length > 0) filter[key] = values
  }
  for (const key of SINGLE_KEYS) if (params.has(key)) filter[key] = params.get(key)
  return filter
}

/** The query with the status `status` switched on or off (cursor dropped: a new filter). */
export function toggleStatus(query, status) {
  const params = filterParams(query)
  const statuses = params.getAll('status')
  params.delete('status')
  const next = statuses.includes(status)
    ? statuses.filter((value) => value !== status)
    : [...statuses, status]
  for (const value of STATUSES) if (next.includes(value)) params.append('status', value)
  return params
}

/** Splits an `attr` value `name:op:value` (or `name:op:s:value`) for the editor. */
export function parseAttr(text) {
  const [name = '', op = 'eq', ...rest] = text.split(':')
  const forcedString = rest[0] === 's' && rest.length > 1
  return { name, op, value: (forcedString ? rest.slice(1) : rest).join(':'), forcedString }
}

/** Joins an attribute filter into the API's `name:op:value` form. */
export function formatAttr({ name, op, value, forcedString }) {
  return forcedString ? `${name}:${op}:s:${value}` : `${name}:${op}:${value}`
}

/** True when the query filters on anything. */
export function hasFilters(query) {
  return filterParams(query).toString() !== ''
}
