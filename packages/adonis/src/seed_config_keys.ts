/**
 * `config/durable.ts` keys that `@adonis-agora/durable` takes and Cairn does not (yet). A
 * migrated config that sets one fails at load with a message saying so, instead of "not a
 * known option" (a reader would take it for a typo) or, worse, a silent no-op. A key Cairn
 * comes to honour leaves this table when it joins KNOWN_FIELDS (define_config.ts); the
 * migration guide lists the same keys.
 */
import type { InvalidArgumentError } from '@cairn/core'
import { invalidConfig } from './errors.ts'

const GUIDE = 'docs/migrating-from-adonis-agora-durable.md'

/** Each key, with what it does in the seed package: the reader knows what they are missing. */
const NOT_IN_CAIRN_YET: Readonly<Record<string, string>> = {
  role: 'standalone / control-plane / tenant topologies',
  transportPool: 'pools of transport connections',
  namespace: 'namespaces: pools of runs sharing one store',
  scopeReads: 'reads fenced to a namespace',
  partition: 'the pool a tenant worker serves',
  verifyTenant: 'signed tenant claims',
  tenant: 'tenant worker credentials',
  requestTimeoutMs: 'the tenant request deadline',
  capabilities: 'capability routing to workers',
  controlPlane: 'a control plane for store-less workers',
  admission: 'singleton admission settings',
  eventBufferTtl: 'how long a broadcast event waits for a first waiter',
  compensationRetries: 'retries of compensations',
  reconcileMs: 'the reconcile safety net',
  blockedPollMs: 'polling of blocked runs',
  remoteAdvanceSilenceMs: 're-dispatch of silent remote turns',
  remoteRedispatchMs: 're-dispatch of remote steps',
  remoteRedispatchMax: 're-dispatch of remote steps',
  traceparent: 'trace context propagation through config',
  trackStepStart: 'a write when each step starts',
  autoSchema: 'turning automatic migrations off',
  runDispatcher: 'a custom run dispatcher',
  consumers: 'broker consumption per process',
  worker: 'the embedded worker loop settings',
}

/** The refusal of a top-level config key Cairn does not take. */
export function unknownConfigKey(key: string): InvalidArgumentError {
  // Object.hasOwn: `constructor` or `__proto__` must not find the table's prototype.
  const seedMeaning = Object.hasOwn(NOT_IN_CAIRN_YET, key) ? NOT_IN_CAIRN_YET[key] : undefined
  if (seedMeaning === undefined) return invalidConfig(key, 'is not a known option')
  return invalidConfig(
    key,
    `is an @adonis-agora/durable option (${seedMeaning}) that is not in Cairn yet (${GUIDE})`,
  )
}
