import type { AddressInfo } from 'node:net'
import env from '#start/env'

/**
 * What `npm start` prints once the server listens: its address and a first request to try.
 * The first line is also how the tests learn the port (they start it with PORT=0).
 */
export function printWelcome(address: AddressInfo | string | null): void {
  if (address === null || typeof address === 'string') return
  const url = `http://${address.address}:${address.port}`
  const database = env.get('DB_CONNECTION', 'sqlite')
  console.log(`Cairn shop listening on ${url}  (database: ${database})`)
  console.log(`\nPlace an order:\n`)
  console.log(
    `  curl -X POST ${url}/orders -H 'content-type: application/json' -d '{"sku":"mug","quantity":1,"card":"4242424242424242"}'`,
  )
  console.log(`\nThen follow it with the orderId it returns, or see everything to try:\n`)
  console.log(`  curl ${url}/\n`)
  console.log(`Watch the runs in the dashboard: ${url}/durable\n`)
}
