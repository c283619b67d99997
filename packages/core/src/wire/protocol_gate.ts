/**
 * What a transport's worker half keeps about its worker's protocol: once an announcement shares
 * no version with these engines, the half is refused for good — the announcement is not
 * stored, and every later `receive` rejects with the same E_PROTOCOL_UNSUPPORTED, so the worker
 * is never handed a task it could misread.
 */
import type { ProtocolUnsupportedError } from '../errors/index.ts'
import type { AnnounceMessage } from './messages.ts'
import { checkAnnouncedProtocols } from './protocol.ts'

export class ProtocolGate {
  #refusal: ProtocolUnsupportedError | null = null

  /** Throws (and remembers) the refusal of an announcement that shares no protocol version. */
  check(message: AnnounceMessage): void {
    if (this.#refusal !== null) throw this.#refusal
    try {
      checkAnnouncedProtocols(message.workerId, message.protocols)
    } catch (error) {
      this.#refusal = error as ProtocolUnsupportedError
      throw error
    }
  }

  /** Throws the remembered refusal, if the worker was refused. */
  assertAdmitted(): void {
    if (this.#refusal !== null) throw this.#refusal
  }
}
