/**
 * `defineConfig` for `config/durable.ts`: checks the config where it is written (an invalid
 * one fails when the app loads its config, with a message naming the field) and fills in the
 * defaults. The provider checks again at boot, for a config that did not go through it.
 */
import type { TransportProvider } from './transports.ts'
import type { DurableConfig, ResolvedDurableConfig, StoreProvider } from './types.ts'
import {
  checkInteger,
  checkTimeoutOrForever,
  NUMBER_RANGES,
  type IntegerRange,
} from '@cairn/core/store-kit'
import {
  checkQueues,
  resolveRetention,
  resolveStepLogs,
  type DeclaredSchedule,
  type RetentionOptions,
  type StepLogOptions,
} from '@cairn/core'
import { asConfigError, invalidConfig } from './errors.ts'
import { validateDashboardConfig } from './dashboard/dashboard_config.ts'
import { resolveCodecConfig } from './codec_config.ts'
import { unknownConfigKey } from './seed_config_keys.ts'
import { resolveWebhooksConfig } from './webhooks/webhook_config.ts'

const KNOWN_FIELDS = new Set([
  'store',
  'stores',
  'instanceId',
  'leaseMs',
  'concurrency',
  'pollIntervalMs',
  'drainTimeoutMs',
  'drive',
  'workflowsPath',
  'stepsPath',
  'dashboard',
  'codec',
  'webhookUrl',
  'webhooks',
  'transport',
  'transports',
  'queues',
  'maxRecoveryAttempts',
  'maxCachedRuns',
  'deadLetterWorkflow',
  'schedules',
  'retention',
  'stepLogs',
])

export function defineConfig<Stores extends Record<string, StoreProvider>>(
  config: DurableConfig<Stores>,
): ResolvedDurableConfig {
  return validateConfig(config)
}

/** Checks a config object (from defineConfig or not) and fills in its defaults. */
export function validateConfig(config: unknown): ResolvedDurableConfig {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) {
    throw invalidConfig('(root)', 'must export an object (use defineConfig)')
  }
  const c = config as Record<string, unknown>
  for (const key of Object.keys(c)) {
    if (!KNOWN_FIELDS.has(key)) throw unknownConfigKey(key)
  }
  const stores = c.stores
  if (stores === null || typeof stores !== 'object' || Array.isArray(stores)) {
    throw invalidConfig('stores', 'must be an object of stores (stores.sqlite(…), stores.lucid(…))')
  }
  const storeNames = Object.keys(stores)
  for (const name of storeNames) {
    if (!isConfigProvider((stores as Record<string, unknown>)[name])) {
      throw invalidConfig(`stores.${name}`, 'must be stores.sqlite(…) or stores.lucid(…)')
    }
  }
  if (typeof c.store !== 'string' || !storeNames.includes(c.store)) {
    throw invalidConfig(
      'store',
      `must name one of stores (${storeNames.join(', ') || 'none defined'}), got ${JSON.stringify(c.store)}`,
    )
  }
  if (c.instanceId !== undefined && (typeof c.instanceId !== 'string' || c.instanceId === '')) {
    throw invalidConfig(
      'instanceId',
      `must be a non-empty string, got ${JSON.stringify(c.instanceId)}`,
    )
  }
  for (const [field, range] of NUMBER_FIELDS) {
    if (c[field] !== undefined) configNumber(field, () => checkInteger(c[field], field, range))
  }
  if (c.drainTimeoutMs !== undefined)
    configNumber('drainTimeoutMs', () => checkTimeoutOrForever(c.drainTimeoutMs, 'drainTimeoutMs'))
  if (c.drive !== undefined && typeof c.drive !== 'boolean') {
    throw invalidConfig('drive', `must be true or false, got ${JSON.stringify(c.drive)}`)
  }
  for (const field of ['workflowsPath', 'stepsPath'] as const) {
    if (c[field] !== undefined && (typeof c[field] !== 'string' || c[field] === ''))
      throw invalidConfig(field, `must be a non-empty path, got ${JSON.stringify(c[field])}`)
  }
  const webhooks = resolveWebhooksConfig(c.webhookUrl, c.webhooks)
  const { transports, transport } = checkTransports(c.transports, c.transport)
  const queues = c.queues === undefined ? {} : configValue('queues', () => checkQueues(c.queues))
  checkDeadLetters(c)
  const cached = c.maxCachedRuns
  if (cached !== undefined)
    configNumber('maxCachedRuns', () =>
      checkInteger(cached, 'maxCachedRuns', { min: 0, max: 100_000 }),
    )
  const schedules = checkSchedules(c.schedules)
  // The engine's own check, at config load: a bad policy names its field here, not at boot.
  if (c.retention !== undefined) configValue('retention', () => resolveRetention(c.retention))
  if (c.stepLogs !== undefined)
    configValue('stepLogs', () => resolveStepLogs(c.stepLogs as StepLogOptions))
  return {
    store: c.store,
    stores: stores as Record<string, StoreProvider>,
    instanceId: c.instanceId as string | undefined,
    leaseMs: c.leaseMs as number | undefined,
    concurrency: c.concurrency as number | undefined,
    pollIntervalMs: c.pollIntervalMs as number | undefined,
    drainTimeoutMs: (c.drainTimeoutMs as number | undefined) ?? 10_000,
    drive: (c.drive as boolean | undefined) ?? false,
    workflowsPath: (c.workflowsPath as string | undefined) ?? 'app/workflows',
    stepsPath: (c.stepsPath as string | undefined) ?? 'app/steps',
    dashboard: validateDashboardConfig(c.dashboard),
    codec: resolveCodecConfig(c.codec),
    webhookUrl: webhooks?.webhookUrl,
    webhooks: webhooks?.webhooks,
    transports,
    transport,
    queues,
    maxRecoveryAttempts: c.maxRecoveryAttempts as number | undefined,
    maxCachedRuns: c.maxCachedRuns as number | undefined,
    deadLetterWorkflow: c.deadLetterWorkflow as string | undefined,
    schedules,
    retention: c.retention as RetentionOptions | undefined,
    stepLogs: c.stepLogs as StepLogOptions | undefined,
  }
}

/**
 * An array of `{ id, workflow, cron | everyMs, … }` with distinct ids; each spec is checked in
 * full by the engine at boot (a bad one fails the boot naming the schedule).
 */
function checkSchedules(schedules: unknown): readonly DeclaredSchedule[] {
  if (schedules === undefined) return []
  if (!Array.isArray(schedules))
    throw invalidConfig('schedules', 'must be an array of { id, workflow, cron | everyMs, … }')
  const ids = new Set<string>()
  for (const [i, entry] of schedules.entries()) {
    const id = (entry as { id?: unknown } | null)?.id
    if (typeof entry !== 'object' || entry === null || typeof id !== 'string' || id === '')
      throw invalidConfig(`schedules[${i}]`, 'must be an object with a non-empty string id')
    if (ids.has(id)) throw invalidConfig(`schedules[${i}]`, `repeats the id ${JSON.stringify(id)}`)
    ids.add(id)
  }
  return schedules as readonly DeclaredSchedule[]
}

/** The engine's own checks of maxRecoveryAttempts and deadLetterWorkflow, at config load. */
function checkDeadLetters(c: Record<string, unknown>): void {
  const max = c.maxRecoveryAttempts
  if (max !== undefined && max !== Infinity)
    configNumber('maxRecoveryAttempts', () =>
      checkInteger(max, 'maxRecoveryAttempts', { min: 0, max: 1_000 }),
    )
  const name = c.deadLetterWorkflow
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    throw invalidConfig('deadLetterWorkflow', `must name a workflow, got ${JSON.stringify(name)}`)
}

/** Transport names are engine transport names: identifiers, made by transports.*(…). */
const TRANSPORT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/

function checkTransports(
  transports: unknown,
  transport: unknown,
): { transports: Record<string, TransportProvider>; transport: string | undefined } {
  if (transports === undefined) {
    if (transport !== undefined)
      throw invalidConfig('transport', 'names a transport, but there is no transports object')
    return { transports: {}, transport: undefined }
  }
  if (transports === null || typeof transports !== 'object' || Array.isArray(transports))
    throw invalidConfig(
      'transports',
      'must be an object of transports (transports.db(…), transports.bullmq(…))',
    )
  const names = Object.keys(transports)
  for (const name of names) {
    if (!TRANSPORT_NAME.test(name))
      throw invalidConfig(
        `transports.${name}`,
        'must be named by a letter then letters, digits, - or _ (at most 64)',
      )
    if (!isConfigProvider((transports as Record<string, unknown>)[name]))
      throw invalidConfig(`transports.${name}`, 'must be transports.db(…) or transports.bullmq(…)')
  }
  if (transport !== undefined && (typeof transport !== 'string' || !names.includes(transport)))
    throw invalidConfig(
      'transport',
      `must name one of transports (${names.join(', ') || 'none defined'}), got ${JSON.stringify(transport)}`,
    )
  return {
    transports: transports as Record<string, TransportProvider>,
    transport: transport as string | undefined,
  }
}

/** The engine's own ranges for the options it takes from here: refused at config load, not at boot. */
const NUMBER_FIELDS = [
  ['leaseMs', NUMBER_RANGES.periodMs],
  ['pollIntervalMs', NUMBER_RANGES.periodMs],
  ['concurrency', NUMBER_RANGES.count],
] as const satisfies ReadonlyArray<readonly [string, IntegerRange]>

/** Runs core's check of one number, restating its refusal as a config error naming `field`. */
function configNumber(field: string, check: () => number): void {
  configValue(field, check)
}

function configValue<T>(field: string, check: () => T): T {
  try {
    return check()
  } catch (error) {
    throw asConfigError(error, field)
  }
}

/** A value made by configProvider.create (the shape core checks: `type` + `resolver`). */
function isConfigProvider(value: unknown): boolean {
  return (
    value !== null &&
    typeof value === 'object' &&
    (value as { type?: unknown }).type === 'provider' &&
    typeof (value as { resolver?: unknown }).resolver === 'function'
  )
}
