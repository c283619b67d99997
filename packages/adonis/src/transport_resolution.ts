/** Resolving one configured transport (a config provider) at boot, its errors naming its key. */
import { configProvider } from '@adonisjs/core'
import type { ApplicationService } from '@adonisjs/core/types'
import { asConfigError, invalidConfig } from './errors.ts'
import type { TransportPair } from './transports.ts'
import type { ResolvedDurableConfig } from './types.ts'

export async function resolveTransport(
  app: ApplicationService,
  config: ResolvedDurableConfig,
  name: string,
): Promise<TransportPair> {
  const field = `transports.${name}`
  const provider = config.transports[name]
  if (provider === undefined) throw invalidConfig('transport', `names no transport: ${name}`)
  let pair: TransportPair | null
  try {
    pair = await configProvider.resolve<TransportPair>(app, provider)
  } catch (error) {
    throw asConfigError(error, field)
  }
  if (pair === null) throw invalidConfig(field, 'did not resolve to a transport')
  return pair
}
