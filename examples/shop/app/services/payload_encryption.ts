/**
 * Encryption at rest for every payload Cairn stores (run inputs and outputs, step results,
 * published state, webhook bodies): an AES-256-GCM `transform` for the codec, set in
 * config/durable.ts (docs/codec.md). The store — and whoever reads its tables or backups —
 * sees only `v1.<base64 of iv, tag, ciphertext>`; the engine, the dashboard and the shop's
 * routes see the values.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { PayloadTransform } from '@cairn/core'

const PREFIX = 'v1.'
const IV_BYTES = 12
const TAG_BYTES = 16

/** `key`: 32 bytes, base64 (DURABLE_PAYLOAD_KEY; `openssl rand -base64 32`). */
export function aesGcmTransform(keyBase64: string): PayloadTransform {
  const key = Buffer.from(keyBase64, 'base64')
  if (key.length !== 32) throw new RangeError('DURABLE_PAYLOAD_KEY must be 32 bytes, base64')
  return {
    encode(text) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()])
      return `${PREFIX}${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`
    },
    decode(text) {
      // Rows written before encryption was turned on are JSON, which never starts with "v".
      // The prefix is also where a second key would go (v2.…) when this one is rotated.
      if (!text.startsWith(PREFIX)) return text
      const raw = Buffer.from(text.slice(PREFIX.length), 'base64')
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES))
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
      const body = raw.subarray(IV_BYTES + TAG_BYTES)
      return Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')
    },
  }
}
