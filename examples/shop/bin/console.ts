/** Ace commands (`node ace …`): the same app in the console environment, which never drives runs. */
await import('reflect-metadata')
const { Ignitor, prettyPrintError } = await import('@adonisjs/core')

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
  })
  .ace()
  .handle(process.argv.splice(2))
  .catch(async (error: unknown) => {
    process.exitCode = 1
    await prettyPrintError(error)
  })
