/**
 * The checkout: record the order → reserve stock → charge the card → (above the approval
 * threshold) wait for a manager's decision → ship → complete. A durable workflow: every step's
 * result is recorded before the next step starts, so a crash or a restart resumes where the run
 * was and never charges the card twice. When a later step fails, or the order is rejected or
 * left unanswered, the completed steps are undone newest first: the charge is refunded, then the
 * stock released (docs/sagas.md).
 *
 * The forward steps are step classes in app/steps, built by the container for each attempt.
 * The workflow still has services injected for what is not a registered step: the undos
 * (`compensate` is a closure, run as the recorded step `compensate:<step>`) and the order's
 * status changes. Recording and completing the order are `ctx.transaction`s: database-only
 * writes that commit with the step's checkpoint, exactly once.
 */
import { inject } from '@adonisjs/core'
import { BaseWorkflow } from '@cairn/adonis'
import { CancelledError, FatalError, SignalTimeoutError, type WorkflowContext } from '@cairn/core'
import Inventory from '#services/inventory'
import Orders from '#services/orders'
import PaymentGateway from '#services/payment_gateway'
import ChargeCardStep from '#steps/charge_card_step'
import ReserveStockStep from '#steps/reserve_stock_step'
import ShipStep from '#steps/ship_step'
import { checkoutInputSchema } from '#validators/checkout_input'
import type { TransactionClientContract } from '@adonisjs/lucid/types/database'

/** The signal POST /orders/:id/approve and /reject send. */
export const APPROVAL_SIGNAL = 'approval'

export interface ApprovalDecision {
  approved: boolean
  by: string
}

export interface CheckoutInput {
  orderId: string
  /** One checkout per cart at a time: the workflow's singleton key. */
  cartId: string
  sku: string
  quantity: number
  amountCents: number
  /** The payment token the gateway handed out for the card: the run never sees the number. */
  cardToken: string
  cardLast4: string
  /** Decided at placement, so a later change of the threshold or timeout leaves this run alone. */
  approval: { timeoutMs: number } | null
}

export interface CheckoutResult {
  orderId: string
  chargeId: string
  trackingNumber: string
}

@inject()
export default class CheckoutWorkflow extends BaseWorkflow<CheckoutInput, CheckoutResult> {
  // A second checkout of a cart while one runs is refused (E_SINGLETON_FULL → 409 E_CART_BUSY):
  // the store decides it in the write that would create the run, exact across processes.
  static workflow = {
    name: 'checkout',
    version: 1,
    singleton: { key: (input: CheckoutInput) => input.cartId, onFull: 'reject' as const },
    // Checked at every start, before the run exists (E_SCHEMA_VALIDATION, nothing stored).
    inputSchema: checkoutInputSchema,
  }

  #inventory: Inventory
  #payments: PaymentGateway
  #orders: Orders

  constructor(inventory: Inventory, payments: PaymentGateway, orders: Orders) {
    super()
    this.#inventory = inventory
    this.#payments = payments
    this.#orders = orders
  }

  override async run(ctx: WorkflowContext, input: CheckoutInput): Promise<CheckoutResult> {
    try {
      return await this.#checkout(ctx, input)
    } catch (error) {
      // The order says why it failed; the compensations run once the body has failed.
      if (!CancelledError.is(error)) {
        const reason = error instanceof Error ? error.message : String(error)
        await ctx.localStep('record-failure', () => this.#orders.markFailed(input.orderId, reason))
      }
      throw error
    }
  }

  async #checkout(ctx: WorkflowContext, input: CheckoutInput): Promise<CheckoutResult> {
    const { orderId } = input
    // The order's row is written here, with this step's checkpoint, not by the route: an order
    // exists only once its run does, and a replay never writes it twice.
    await ctx.transaction<void, TransactionClientContract>('record-order', (trx) =>
      this.#orders.record({ ...input, needsApproval: input.approval !== null }, trx),
    )
    await ReserveStockStep.invoke(
      ctx,
      { orderId, sku: input.sku, quantity: input.quantity },
      { compensate: (reservation) => this.#inventory.release(reservation) },
    )
    const charge = await ChargeCardStep.invoke(
      ctx,
      { orderId, cardToken: input.cardToken, amountCents: input.amountCents },
      { compensate: (charged) => this.#payments.refund(charged) },
    )
    if (input.approval !== null) await this.#awaitApproval(ctx, orderId, input.approval.timeoutMs)
    const shipment = await ShipStep.invoke(ctx, { orderId, sku: input.sku })
    // Only a database write: it commits with the step's checkpoint, so it happens exactly once.
    await ctx.transaction<void, TransactionClientContract>('complete-order', (trx) =>
      this.#orders.markCompleted(orderId, trx),
    )
    return { orderId, chargeId: charge.chargeId, trackingNumber: shipment.trackingNumber }
  }

  /** Waits for a manager; a rejection or no answer in time fails the run (and undoes it). */
  async #awaitApproval(ctx: WorkflowContext, orderId: string, timeoutMs: number): Promise<void> {
    await ctx.localStep('request-approval', () => this.#orders.markAwaitingApproval(orderId))
    let decision: ApprovalDecision
    try {
      decision = await ctx.waitForSignal<ApprovalDecision>(APPROVAL_SIGNAL, { timeoutMs })
    } catch (error) {
      if (SignalTimeoutError.is(error)) {
        throw new FatalError(`Nobody approved the order within ${timeoutMs} ms`, {
          details: { reason: 'approval_timed_out' },
        })
      }
      throw error
    }
    if (!decision.approved) {
      throw new FatalError(`Rejected by ${decision.by}`, { details: { reason: 'rejected' } })
    }
    await ctx.localStep('record-approval', () => this.#orders.markApproved(orderId, decision.by))
  }
}
