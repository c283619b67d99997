/**
 * Store URLs carry passwords; nothing the CLI prints may show one. `redactUrl` masks the
 * password of a URL for display; `secretsOf` lists the strings to scrub from any other text
 * (an error message from a driver may quote its connection string). Both also work on text
 * that WHATWG URL rejects (`postgres://user:pw@/db`): a malformed URL is still a secret.
 */
const MASK = '***'
/** `scheme://user:password@` at the start, as written (no URL parsing needed). */
const CREDENTIALS = /^([a-z][a-z0-9+.-]*:\/\/[^/?#@:]*:)([^/?#]*)@/i

/** The URL with its password replaced by `***`; text with no password comes back unchanged. */
export function redactUrl(text: string): string {
  const match = CREDENTIALS.exec(text)
  if (match === null || match[2] === '') return text
  return `${match[1] as string}${MASK}@${text.slice(match[0].length)}`
}

/** The password of a store URL as written and decoded, and the whole URL (empty: none). */
export function secretsOf(text: string | undefined): string[] {
  const raw = text === undefined ? undefined : CREDENTIALS.exec(text)?.[2]
  if (text === undefined || raw === undefined || raw === '') return []
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
