/**
 * `npm start` at the repository root (the README's first command) boots the shop, and an
 * order placed with the curl it prints completes. Runs the root package.json's start script
 * through a shell from the repository root, as npm does.
 */
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { finished, orderWhen, post } from './helpers/shop_client.ts'
import { startShop, tempDatabase } from './helpers/shop_server.ts'

const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url))

void test('npm start boots the shop; the printed curl places an order that completes', async (t) => {
  const pkg = JSON.parse(await readFile(`${REPO_ROOT}package.json`, 'utf8')) as {
    scripts: { start: string }
  }
  const shop = await startShop(
    t,
    { SQLITE_FILE: await tempDatabase(t) },
    { command: 'sh', args: ['-c', pkg.scripts.start], cwd: REPO_ROOT },
  )
  // The curl line it printed, replayed: its JSON body, against the URL it printed.
  const curl = /curl -X POST (\S+) -H 'content-type: application\/json' -d '([^']+)'/
  await shop.printed(curl)
  const printed = curl.exec(shop.output())
  assert.ok(printed, shop.output())
  assert.equal(printed[1], `${shop.url}/orders`)
  const placed = await post(printed[1], JSON.parse(printed[2]!))
  assert.equal(placed.status, 202, JSON.stringify(placed.body))
  const order = await orderWhen(shop.url, placed.body.orderId, finished)
  assert.equal(order.run.status, 'completed', JSON.stringify(order))
})
