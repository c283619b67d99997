/**
 * Store URLs carry passwords; nothing the CLI prints may show one. `redactUrl` masks the
 * password of a URL for display; `secretsOf` lists the strings to scrub from any other text
 * (an error message from a driver may quote its connection string).
 */
const MASK = '***'

/** The URL with its password replaced by `***`; text that is not a URL comes back unchanged. */
export function redactUrl(text: string): string {
  if (!URL.canParse(text)) return text
  const url = new URL(text)
  if (url.password === '') return text
  url.password = MASK
  return url.toString()
}

/** The password of a store URL as written and decoded (empty when it has none). */
export function secretsOf(text: string | undefined): string[] {
  if (text === undefined || !URL.canParse(text)) return []
  const raw = new URL(text).password
  if (raw === '') return []
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
