/**
 * The checkout: reserve stock → charge the card → (above the approval threshold) wait for a
 * manager's decision → ship → complete. A durable workflow: every step's result is recorded
 * before the next step starts, so a crash or a restart resumes where the run was and never
 * charges the card twice. When a later step fails, or the order is rejected or left
 * unanswered, the completed steps are undone newest first: the charge is refunded, then the
 * stock released (docs/sagas.md).
 *
 * The services are built by the container (@inject) and do the work; this class only says
 * in which order, what is recorded, and what undoes what.
 */
import { inject } from '@adonisjs/core'
import { BaseWorkflow } from '@cairn/adonis'
import { CancelledError, FatalError, SignalTimeoutError, type WorkflowContext } from '@cairn/core'
import Carrier from '#services/carrier'
import Inventory from '#services/inventory'
import Orders from '#services/orders'
import PaymentGateway from '#services/payment_gateway'

/** The signal POST /orders/:id/approve and /reject send. */
export const APPROVAL_SIGNAL = 'approval'

export interface ApprovalDecision {
  approved: boolean
  by: string
}

export interface CheckoutInput {
  orderId: string
  sku: string
  quantity: number
  amountCents: number
  /** See ChargeRequest.card: a real app passes a payment token here. */
  card: string
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
  static workflow = { name: 'checkout', version: 1 }

  #inventory: Inventory
  #payments: PaymentGateway
  #carrier: Carrier
  #orders: Orders

  constructor(inventory: Inventory, payments: PaymentGateway, carrier: Carrier, orders: Orders) {
    super()
    this.#inventory = inventory
    this.#payments = payments
    this.#carrier = carrier
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
    await ctx.localStep(
      'reserve-stock',
      () => this.#inventory.reserve(orderId, input.sku, input.quantity),
      { compensate: (reservation) => this.#inventory.release(reservation) },
    )
    const charge = await ctx.localStep(
      'charge-card',
      // The key names this run's charge step: a re-run of the step after a crash repeats the
      // key, and the gateway answers with the first charge instead of charging again.
      ({ runId, stepName }) =>
        this.#payments.charge({
          orderId,
          card: input.card,
          amountCents: input.amountCents,
          idempotencyKey: `${runId}:${stepName}`,
        }),
      { compensate: (charged) => this.#payments.refund(charged) },
    )
    if (input.approval !== null) await this.#awaitApproval(ctx, orderId, input.approval.timeoutMs)
    const shipment = await ctx.localStep('ship', () => this.#carrier.ship(orderId, input.sku))
    await ctx.localStep('complete-order', () => this.#orders.markCompleted(orderId))
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
