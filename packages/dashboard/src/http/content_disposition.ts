/**
 * `Content-Disposition: attachment` for a file named after data (a run id: any text at all).
 * The name must neither break the header (a quote, a control character, a non-Latin-1
 * character that Node refuses to send) nor steer where the file lands (`../`, `C:\`), so
 * it is sanitized twice, as RFC 6266 suggests: `filename="…"` in plain ASCII for every client,
 * and, when the name has more than ASCII, `filename*=UTF-8''…` (RFC 8187, percent-encoded),
 * which current browsers prefer.
 */

/**
 * What no file name should hold: controls, format characters (a right-to-left override would
 * show `evil\u202enosj.exe` as `evilexe.json`), lone surrogates (not encodable as UTF-8),
 * line separators, and the characters common systems reserve.
 */
const UNSAFE_ANYWHERE = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}/\\:*?"<>|]/gu
/** Code points kept of a name: enough to tell runs apart, short of any system's limit. */
const MAX_NAME = 120

/** The header value for `name` + `suffix` (a suffix such as `.history.json` is kept whole). */
export function attachmentDisposition(name: string, suffix: string): string {
  const unicode = clean(name.replace(UNSAFE_ANYWHERE, '_')) + suffix
  const ascii = clean(name.replace(/[^A-Za-z0-9._-]/g, '_')) + suffix
  return unicode === ascii
    ? `attachment; filename="${ascii}"`
    : `attachment; filename="${ascii}"; filename*=UTF-8''${encodeRfc8187(unicode)}`
}

/** Cut to MAX_NAME code points; no leading dot (a hidden file) and never empty. */
function clean(name: string): string {
  const cut = [...name].slice(0, MAX_NAME).join('')
  return cut.replace(/^\.+/, (dots) => '_'.repeat(dots.length)) || '_'
}

/** RFC 8187 value-chars: attr-chars as they are, everything else as UTF-8 %XX. */
function encodeRfc8187(text: string): string {
  return encodeURIComponent(text).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  )
}
