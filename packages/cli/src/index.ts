/**
 * @cairn/cli — the `cairn` command: serve the dashboard over a store, list, inspect, retry
 * and cancel runs (docs/cli.md). `main` runs one command line; `openStoreFromUrl` and
 * `parseStoreUrl` turn a store URL into an opened @cairn/sql store; `redactUrl` masks a URL's
 * password for display.
 */
export { main } from './main.ts'
export type { Io } from './command.ts'
export { openStoreFromUrl } from './store/open_store.ts'
export { parseStoreUrl, type StoreTarget } from './store/store_url.ts'
export { redactUrl } from './store/redact.ts'
