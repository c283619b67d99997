/**
 * The shop's HTTP server (`npm start` at the repository root). Boots the AdonisJS app in the
 * web environment: the shop provider migrates and seeds the database, the Cairn provider
 * drives checkout runs, and the server listens on HOST:PORT (default 127.0.0.1:3333).
 * Runs under the app's TypeScript loader: node --import=@poppinss/ts-exec bin/server.ts
 */
await import('reflect-metadata')
const { Ignitor, prettyPrintError } = await import('@adonisjs/core')

// AdonisJS binds 0.0.0.0 when HOST is unset; an example should not be reachable from the network.
process.env.HOST ||= '127.0.0.1'

const APP_ROOT = new URL('../', import.meta.url)
const IMPORTER = (filePath: string) =>
  filePath.startsWith('./') || filePath.startsWith('../')
    ? import(new URL(filePath, APP_ROOT).href)
    : import(filePath)

void new Ignitor(APP_ROOT, { importer: IMPORTER })
  .tap((app) => {
    app.booting(async () => {
      await import('#start/env')
    })
    app.listen('SIGTERM', () => void app.terminate())
    app.listen('SIGINT', () => void app.terminate())
  })
  .httpServer()
  .start()
  .catch(async (error: unknown) => {
    process.exitCode = 1
    await prettyPrintError(error)
  })
