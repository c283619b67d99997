/**
 * What the stores use of a Knex instance: its client, which lends and takes back the
 * connections of the application's pool. Typed here, not from knex's own types (which type
 * the client as `any`), so each use is checked.
 */

export interface KnexClient {
  /** The driver package Knex's connections come from: `pg`, `mysql2`, `better-sqlite3`, … */
  readonly driverName?: unknown
  readonly config: { readonly client?: unknown; readonly connectionPool?: unknown }
  /**
   * What Knex connects with (its `connection` option, as an object or a URL); set on the first
   * connection when `connection` is a function. Knex hides the password (non-enumerable).
   */
  readonly connectionSettings?: unknown
  acquireConnection(): Promise<unknown>
  releaseConnection(connection: unknown): Promise<unknown>
}

/**
 * Hands a borrowed connection back to Knex. One that failed is marked the way Knex marks its
 * own failed connections (`__knex__disposed`): Knex's pool checks a connection before lending
 * it again and destroys a marked one, so the application never gets it back. Callers close a
 * failed socket first, as the libraries' own pools do.
 */
export function giveBack(client: KnexClient, connection: object, failure: Error | null): void {
  if (failure !== null) (connection as { __knex__disposed?: unknown }).__knex__disposed ??= failure
  try {
    client.releaseConnection(connection).catch(() => undefined)
  } catch {
    // The application destroyed its Knex instance meanwhile: nothing is left to give back to.
  }
}
