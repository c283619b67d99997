/**
 * Binary data as base64 text. Only the bytes a view covers are written, never the rest of
 * its backing buffer: a small Node Buffer shares a pool with unrelated (possibly secret)
 * data. Multi-byte elements keep the platform's byte order (little-endian on every platform
 * Node supports), so a typed array reads back the same numbers.
 */

/** The base64 text of the bytes `view` covers (or of the whole ArrayBuffer). */
export function toBase64(view: ArrayBufferView | ArrayBuffer): string {
  if (view instanceof ArrayBuffer) return Buffer.from(view).toString('base64')
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('base64')
}

/** A fresh ArrayBuffer holding the bytes of base64 `text` (never a shared pool slice). */
export function fromBase64(text: string): ArrayBuffer {
  const bytes = Buffer.from(text, 'base64')
  const buffer = new ArrayBuffer(bytes.byteLength)
  new Uint8Array(buffer).set(bytes)
  return buffer
}
