/**
 * Default run ids: UUIDv7 (RFC 9562), time-ordered and monotonic within this process. Ordered
 * ids keep inserts at the end of every store's id index (one hot page instead of a random page
 * per new run) and make ids sort like their creation times.
 */
import { randomFillSync } from 'node:crypto'

const random = new Uint8Array(4096)
let randomOffset = random.length
let lastMs = 0
let sequence = 0

export function newRunId(): string {
  let ms = Date.now()
  if (ms <= lastMs) {
    // Same (or an earlier: the clock stepped back) millisecond: count up in the 12-bit field.
    sequence += 1
    if (sequence > 0xfff) {
      lastMs += 1
      sequence = 0
    }
    ms = lastMs
  } else {
    lastMs = ms
    sequence = 0
  }
  return format(ms, sequence, take(8))
}

function take(n: number): Uint8Array {
  if (randomOffset + n > random.length) {
    randomFillSync(random)
    randomOffset = 0
  }
  randomOffset += n
  return random.subarray(randomOffset - n, randomOffset)
}

function hex(value: number, digits: number): string {
  return value.toString(16).padStart(digits, '0')
}

function format(ms: number, seq: number, rand: Uint8Array): string {
  const time = hex(ms, 12)
  const variant = ((rand[0] as number) & 0x3f) | 0x80
  const tail = [...rand.subarray(1, 8)].map((b) => hex(b, 2)).join('')
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex(seq, 3)}-${hex(variant, 2)}${tail.slice(0, 2)}-${tail.slice(2)}`
}
