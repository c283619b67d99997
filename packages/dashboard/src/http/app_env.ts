/** The Hono environment of the dashboard's app: what middleware hands to routes. */
import type { Principal } from '../auth/authenticate.ts'

export interface AppEnv {
  Variables: {
    /** Set by the auth middleware for every non-public route. */
    principal: Principal
  }
}
