/**
 * The shop's HTTP server (`npm start` at the repository root). Boots the AdonisJS app in the
 * web environment: the shop provider migrates and seeds the database, the Cairn provider
 * drives checkout runs, and the server listens on HOST:PORT (default 127.0.0.1:3333).
 * Once it listens it prints its URL and a curl line to try.
 * Runs under the app's TypeScript loader, from this directory (ts-exec reads its tsconfig.json):
 * node --import=@poppinss/ts-exec bin/server.ts
 */
await import('reflect-metadata')
const { Ignitor, prettyPrintError } = await import('@adonisjs/core')

// AdonisJS binds 0.0.0.0 when HOST is unset; an example should not be reachable from the network.
process.env.HOST ||= '127.0.0.1'
// `npm start` is a local try-out: development mode, which also opens the dashboard without a
// token. A deployment sets NODE_ENV=production, and the dashboard then needs one.
process.env.NODE_ENV ||= 'development'

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
    // Once the server listens: its address (the real port, also with PORT=0) and what to try.
    void app.ready(async () => {
      const { printWelcome } = await import('#start/welcome')
      const server = await app.container.make('server')
      printWelcome(server.getNodeServer()?.address() ?? null)
    })
  })
  .httpServer()
  .start()
  .catch(async (error: unknown) => {
    process.exitCode = 1
    await prettyPrintError(error)
  })
