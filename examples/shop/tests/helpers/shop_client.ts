/** The shop's HTTP API as the tests use it: JSON in, `{ status, body }` out, and polling an order. */
import { withLimit } from './shop_server.ts'

export interface Reply {
  status: number
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- JSON the assertions inspect
  body: any
}

export async function get(url: string): Promise<Reply> {
  const response = await fetch(url)
  return { status: response.status, body: await response.json() }
}

export async function post(url: string, body: unknown, raw = false): Promise<Reply> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: raw ? (body as string) : JSON.stringify(body),
  })
  return { status: response.status, body: await response.json() }
}

/** Places an order; fails unless the shop accepted it. Returns the order id. */
export async function placeOrder(base: string, sku: string, quantity: number, card = VISA) {
  const reply = await post(`${base}/orders`, { sku, quantity, card })
  if (reply.status !== 202) throw new Error(`order refused: ${JSON.stringify(reply)}`)
  return reply.body.orderId as string
}

export const VISA = '4242424242424242'
export const DECLINED = '4000000000000002'

/**
 * Reads GET /orders/:id until `done` holds for it (polling; the limit only stops a hung
 * test, with the last state seen).
 */
export async function orderWhen(
  base: string,
  orderId: string,
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the order's JSON
  done: (order: any) => boolean,
  limitMs = 90_000,
) {
  let last: unknown
  const poll = async () => {
    for (;;) {
      const { body } = await get(`${base}/orders/${orderId}`)
      last = body
      if (done(body)) return body
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }
  return withLimit(
    poll(),
    limitMs,
    () => `order ${orderId} never got there: ${JSON.stringify(last)}`,
  )
}

/** A finished run: completed, failed or cancelled (compensations included). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the order's JSON
export const finished = (order: any) =>
  ['completed', 'failed', 'cancelled'].includes(order.run?.status)

/** Waiting for the manager: the run is suspended on the approval signal. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the order's JSON
export const awaitingApproval = (order: any) =>
  order.status === 'awaiting_approval' && order.run?.status === 'waiting'

export async function stockOf(base: string, sku: string): Promise<number> {
  const { body } = await get(`${base}/`)
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the index's JSON
  return body.products.find((p: any) => p.sku === sku).stock
}
