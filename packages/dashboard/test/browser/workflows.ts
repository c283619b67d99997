/**
 * The workflows the browser tests drive through a real engine: an order that fails once and
 * succeeds after a retry (held at a gate so the test sees it complete live), a batch with
 * parallel steps and a child, one waiting for a signal, one stopped at a breakpoint, one with
 * search attributes, a saga to cancel with compensation, one with hostile names and payloads,
 * one with many positions, and a supervisor that waits for a signal after its child finished.
 */
import type { Engine } from '@cairn/core'

export const XSS = '<img src=x onerror="window.__xss=1;alert(1)">'
export const XSS_WORKFLOW = `xss ${XSS}`

/** A gate the test opens: the retried order's charge step waits on it. */
export interface Gate {
  open(): void
  wait(): Promise<void>
}

export function createGate(): Gate {
  let release!: () => void
  const opened = new Promise<void>((resolve) => (release = resolve))
  return { open: () => release(), wait: () => opened }
}

export interface Controls {
  /** While false, the charge step fails at once (retries: 0), so the run fails. */
  paymentsUp: boolean
  chargeGate: Gate
  /** Times the order's reserve step ran (a fork from position 1 must not run it again). */
  reservations: number
  /** Times the booking's room hold was compensated (released). */
  releases: number
}

export function registerWorkflows(engine: Engine, controls: Controls): void {
  engine.register('ship-order', 1, async (ctx, order: { id: string; total: number }) => {
    const reservation = await ctx.localStep('reserve', () => {
      controls.reservations++
      return `res-${order.id}`
    })
    const charge = await ctx.localStep(
      'charge',
      async () => {
        if (!controls.paymentsUp) throw new Error('payment provider unavailable')
        await controls.chargeGate.wait()
        return `ch-${order.total}`
      },
      { retries: 0 },
    )
    return { reservation, charge }
  })
  engine.register('batch', 1, async (ctx, size: number) => {
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
    // Positions are taken at call time, so these three run side by side.
    const parts = await Promise.all([
      ctx.localStep('left', async () => (await pause(120), size)),
      ctx.localStep('right', async () => (await pause(200), size * 2)),
      ctx.child('leaf', { size }),
    ])
    return parts
  })
  engine.register('leaf', 1, async (ctx, input: { size: number }) =>
    ctx.localStep('grow', () => input.size + 1),
  )
  engine.register('approval', 1, async (ctx) => ctx.waitForSignal('approve'))
  // Open while its child is finished: the child cannot be deleted until it ends.
  engine.register('supervisor', 1, async (ctx) => {
    await ctx.child('leaf', { size: 1 })
    return ctx.waitForSignal('approve')
  })
  // Waits on a timer an hour away: healthy, its claimableAt in the future.
  engine.register('reminder', 1, async (ctx) => ctx.sleep('1h'))
  engine.register('reviewed', 1, async (ctx) => ctx.breakpoint('review'))
  engine.register('booking', 1, async (ctx) => {
    await ctx.localStep('hold-room', () => 'room-1', {
      compensate: async () => void controls.releases++,
    })
    return ctx.waitForSignal('confirm')
  })
  engine.register('invoice', 1, async (ctx, invoice: { customer: string; amount: number }) => {
    await ctx.upsertSearchAttributes({ customer: invoice.customer, amount: invoice.amount })
    return invoice.amount
  })
  engine.register(XSS_WORKFLOW, 1, async (ctx) => {
    await ctx.localStep(XSS, () => XSS)
    await ctx.localStep('explode', () => Promise.reject(new Error(`boom ${XSS}`)), { retries: 0 })
  })
  engine.register('many-steps', 1, async (ctx, count: number) => {
    for (let i = 0; i < count; i++) await ctx.localStep(`step-${i}`, () => i)
    return count
  })
}
