// The runs list's order: newest first (the default: no `sort` in the URL) or oldest first
// (`sort=created`, the API's own key and value). The list, its URL, its pages and bulk actions
// share it; facets and the live stream do not take it (counts and events have no order).

export const NEWEST_FIRST = '-created'
export const OLDEST_FIRST = 'created'

/** The sort a query asks for: oldest first only when it says so. */
export function sortOf(query) {
  return query.get('sort') === OLDEST_FIRST ? OLDEST_FIRST : NEWEST_FIRST
}

/** `params` with `sort` added; the default stays out of the URL. */
export function withSort(params, sort) {
  if (sort === OLDEST_FIRST) params.set('sort', OLDEST_FIRST)
  return params
}

/** The other order. */
export function flipped(sort) {
  return sort === OLDEST_FIRST ? NEWEST_FIRST : OLDEST_FIRST
}

/** How the order reads in a sentence: "newest first" or "oldest first". */
export function sortLabel(sort) {
  return sort === OLDEST_FIRST ? 'oldest first' : 'newest first'
}
