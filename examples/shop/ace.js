// `node ace <command>` (migration:status, repl, list, …) under the app's TypeScript loader.
import '@poppinss/ts-exec'
await import('./bin/console.ts')
