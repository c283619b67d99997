/** Who holds a stream, for the per-caller cap (stream_registry.ts). */
import type { Principal } from '../auth/authenticate.ts'

export function principalKey(principal: Principal): string {
  switch (principal.kind) {
    case 'bearer':
      return `bearer:${principal.token}`
    case 'session':
      return `session:${principal.session.id}`
    default:
      // Open and authorize callers are told apart by their (anonymous) session when they have one.
      return principal.session === null
        ? principal.kind
        : `${principal.kind}:${principal.session.id}`
  }
}
