/**
 * The adapter `transports.queue` carries tasks on: one of the adapters in the app's
 * config/queue.ts (`@adonisjs/queue`), resolved like `@adonisjs/queue` resolves it — the same
 * Redis connection or Lucid connection the app's jobs use. The transport calls the factory once
 * per half (each half needs its own worker id).
 */
import { configProvider } from '@adonisjs/core'
import type { ApplicationService } from '@adonisjs/core/types'
import { InvalidArgumentError } from '@cairn/core'

/** What config/queue.ts holds (the fields read here). */
interface QueueConfigShape {
  default?: unknown
  adapters?: Record<string, unknown>
}

/** The factory of the adapter named `name` (default: config/queue.ts's `default`). */
export async function queueAdapterFactory(
  app: ApplicationService,
  name: string | undefined,
): Promise<() => unknown> {
  const config = app.config.get<QueueConfigShape | undefined>('queue', undefined)
  if (config === undefined || typeof config !== 'object' || config === null)
    throw new InvalidArgumentError(
      'transports.queue needs @adonisjs/queue configured (config/queue.ts): node ace add @adonisjs/queue',
    )
  const adapters = config.adapters ?? {}
  const chosen = name ?? (typeof config.default === 'string' ? config.default : undefined)
  if (chosen === undefined || !Object.hasOwn(adapters, chosen))
    throw new InvalidArgumentError(
      `transports.queue: config/queue.ts has no adapter ${JSON.stringify(chosen ?? '(no default)')} (it has: ${Object.keys(adapters).join(', ') || 'none'})`,
    )
  const provider = adapters[chosen]
  const factory = (await configProvider.resolve<unknown>(app, provider)) ?? provider
  if (typeof factory !== 'function')
    throw new InvalidArgumentError(
      `transports.queue: config/queue.ts's adapter ${JSON.stringify(chosen)} did not resolve to an adapter factory`,
    )
  return factory as () => unknown
}
