/**
 * `webhookUrl` and `webhooks` in config/durable.ts: the public address third parties call back
 * (`ctx.webhook()` URLs are `<webhookUrl>/<token>`), and the receiving route the provider
 * mounts for it — by default at the address's own path.
 */
import { checkInteger, type IntegerRange } from '@cairn/core/store-kit'
import { asConfigError, invalidConfig } from '../errors.ts'

export interface DurableWebhooksConfig {
  /**
   * Where the receiving route is mounted in this app (`POST <path>/:token`). Default: the path
   * of `webhookUrl`. Set it when a proxy in front of the app rewrites the path.
   */
  path?: string
  /**
   * The largest callback body accepted, in bytes: a longer one is answered 413 while it is
   * being read, and nothing is stored. Default 1 MiB (1 048 576); at most 64 MiB.
   */
  maxBodyBytes?: number
}

/** Also a valid `webhooks` input: the provider checks the resolved config again at boot. */
export interface ResolvedWebhooksConfig {
  path: string
  maxBodyBytes: number
}

export const DEFAULT_WEBHOOK_BODY_BYTES = 1024 * 1024
const BODY_BYTES: IntegerRange = { min: 1, max: 64 * 1024 * 1024 }
const KNOWN = new Set(['path', 'maxBodyBytes'])

/**
 * The checked `webhookUrl` and the receiving route's settings; both undefined when the app has
 * no `webhookUrl` (then nothing is mounted, and `ctx.webhook()` URLs are null).
 */
export function resolveWebhooksConfig(
  webhookUrl: unknown,
  webhooks: unknown,
): { webhookUrl: string; webhooks: ResolvedWebhooksConfig } | undefined {
  if (webhookUrl === undefined) {
    if (webhooks !== undefined) {
      throw invalidConfig('webhooks', 'has no effect without webhookUrl: set webhookUrl too')
    }
    return undefined
  }
  const url = checkUrl(webhookUrl)
  const section = checkSection(webhooks)
  const path =
    section.path === undefined
      ? checkPath(new URL(url).pathname, 'webhookUrl')
      : checkPath(section.path, 'webhooks.path')
  return { webhookUrl: url, webhooks: { path, maxBodyBytes: maxBodyBytes(section.maxBodyBytes) } }
}

function checkUrl(value: unknown): string {
  const url = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null
  if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw invalidConfig(
      'webhookUrl',
      `must be an absolute http(s) URL such as "https://shop.example.com/durable/webhooks", got ${JSON.stringify(value)}`,
    )
  }
  // `<webhookUrl>/<token>` must be a path under it: a query or a fragment would swallow it.
  if (url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw invalidConfig('webhookUrl', 'must have no query, fragment or credentials')
  }
  return value as string
}

function checkSection(value: unknown): DurableWebhooksConfig {
  if (value === undefined) return {}
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalidConfig('webhooks', 'must be an object ({ path?, maxBodyBytes? })')
  }
  for (const key of Object.keys(value)) {
    if (!KNOWN.has(key)) throw invalidConfig(`webhooks.${key}`, 'is not a known option')
  }
  return value as DurableWebhooksConfig
}

/** An absolute path of plain characters, not `/` (the route would catch every POST /:x). */
function checkPath(path: unknown, field: string): string {
  if (typeof path !== 'string' || !/^\/[A-Za-z0-9_\-/.]*$/.test(path) || path.includes('..')) {
    throw invalidConfig(
      field,
      `must give an absolute URL path of letters, digits and - _ . / such as "/durable/webhooks", got ${JSON.stringify(path)}`,
    )
  }
  const trimmed = path.replace(/\/+$/, '')
  if (trimmed === '') {
    throw invalidConfig(field, 'must not give the path "/": the route would catch POST /:anything')
  }
  return trimmed
}

function maxBodyBytes(value: unknown): number {
  if (value === undefined) return DEFAULT_WEBHOOK_BODY_BYTES
  try {
    return checkInteger(value, 'maxBodyBytes', BODY_BYTES)
  } catch (error) {
    throw asConfigError(error, 'webhooks.maxBodyBytes')
  }
}
