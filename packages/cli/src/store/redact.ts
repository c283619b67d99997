/**
 * Store URLs carry passwords; nothing the CLI prints may show one. `redactUrl` masks the
 * password of a URL for display; `secretsOf` lists the strings to scrub from any other text
 * (an error message from a driver may quote its connection string). Both also work on text
 * that WHATWG URL rejects (`postgres://user:pw@/db`): a malformed URL is still a secret.
 */
const MASK = '***'
const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i

interface Credentials {
  /** `scheme://user:` as written. */
  head: string
  password: string
  /** `@host…` as written. */
  tail: string
}

/**
 * The user and password of `scheme://user:password@host…` as written, taken between `://` and
 * the LAST `@` of the text: a user name with an unencoded `@`, a password with an unencoded
 * `/`, `#`, `?` or `@` (shapes WHATWG URL misreads, and drivers quote back in their errors)
 * still yield the whole password. An `@` in a path or query makes the mask cover the host too:
 * more than needed, never less.
 */
function credentialsOf(text: string): Credentials | null {
  const scheme = SCHEME.exec(text)?.[0]
  if (scheme === undefined) return null
  const at = text.lastIndexOf('@')
  if (at < scheme.length) return null
  const userinfo = text.slice(scheme.length, at)
  const colon = userinfo.indexOf(':')
  if (colon < 0 || colon === userinfo.length - 1) return null
  return {
    head: text.slice(0, scheme.length + colon + 1),
    password: userinfo.slice(colon + 1),
    tail: text.slice(at),
  }
}

/** The URL with its password replaced by `***`; text with no password comes back unchanged. */
export function redactUrl(text: string): string {
  const credentials = credentialsOf(text)
  return credentials === null ? text : `${credentials.head}${MASK}${credentials.tail}`
}

/** The password of a store URL as written and decoded, and the whole URL (empty: none). */
export function secretsOf(text: string | undefined): string[] {
  const raw = text === undefined ? undefined : credentialsOf(text)?.password
  if (text === undefined || raw === undefined) return []
  return [...new Set([text, raw, safeDecode(raw)])]
}

/** `text` with every occurrence of each secret replaced by `***`, longest secret first. */
export function scrub(text: string, secrets: readonly string[]): string {
  let result = text
  for (const secret of [...secrets].sort((a, b) => b.length - a.length))
    result = result.split(secret).join(secret.includes('://') ? redactUrl(secret) : MASK)
  return result
}

function safeDecode(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}
