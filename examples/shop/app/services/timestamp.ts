/**
 * The time the shop writes into its timestamp columns: an ISO string in UTC. SQLite has no
 * date type and keeps what it is given, so a string with its zone reads back the same on any
 * machine; Postgres parses it into its timestamptz.
 */
export function timestamp(at: Date = new Date()): string {
  return at.toISOString()
}
