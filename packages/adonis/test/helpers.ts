/**
 * Boots a real AdonisJS 7 application (core providers and config, from
 * @adonisjs/core/factories) rooted at a fixture directory, with the Cairn provider and the
 * given `durable` config. The Cairn store is a SQLite file in a fresh temp directory.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestContext } from 'node:test'
import { IgnitorFactory } from '@adonisjs/core/factories'
import type { ApplicationService } from '@adonisjs/core/types'
import type { AppEnvironments } from '@adonisjs/core/types/app'

export const APP_ROOT = new URL('./fixtures/app/', import.meta.url)
export const DUPLICATE_APP_ROOT = new URL('./fixtures/duplicate_app/', import.meta.url)

export interface AppOptions {
  root?: URL
  environment?: AppEnvironments
  providers?: Array<() => Promise<unknown>>
  config?: Record<string, unknown>
}

/** Creates and initialises the app (config loaded, providers registered); boot is the caller's. */
export async function createApp(durable: unknown, options: AppOptions = {}) {
  const ignitor = new IgnitorFactory()
    .withCoreProviders()
    .withCoreConfig()
    .merge({
      config: {
        ...options.config,
        durable,
        logger: { default: 'app', loggers: { app: { enabled: true, level: 'warn' } } },
      },
      rcFileContents: {
        providers: [
          ...(options.providers ?? []),
          () => import('../src/providers/durable_provider.ts'),
        ],
      },
    })
    .create(options.root ?? APP_ROOT, { importer: (path) => import(path) })
  const app = ignitor.createApp(options.environment ?? 'web') as ApplicationService
  await app.init()
  return app
}

/** Initialises, boots and starts the app; terminates it when the test ends. */
export async function startApp(t: TestContext, durable: unknown, options: AppOptions = {}) {
  const app = await createApp(durable, options)
  t.after(() => app.terminate())
  await app.boot()
  await app.start(() => {})
  return app
}

/** A temp directory for the test's SQLite files, removed when the test ends. */
export async function tempDir(t: TestContext): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'cairn-adonis-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}
