import vine from '@vinejs/vine'

/**
 * What a checkout run takes (CheckoutInput), checked by the engine before the run exists
 * (`inputSchema` on CheckoutWorkflow, docs/validation.md): whoever starts a checkout — the
 * orders controller, a script, a replayed request — cannot store a run its steps would choke
 * on later. Values are taken as sent: no trimming, no conversion.
 */
export const checkoutInputSchema = vine.compile(
  vine.object({
    orderId: vine.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    cartId: vine.string().regex(/^[A-Za-z0-9_-]{1,64}$/),
    sku: vine.string().minLength(1).maxLength(64),
    quantity: vine.number({ strict: true }).withoutDecimals().min(1).max(20),
    amountCents: vine.number({ strict: true }).withoutDecimals().min(0),
    cardToken: vine.string().minLength(1).maxLength(200),
    cardLast4: vine.string().regex(/^[0-9]{4}$/),
    approval: vine
      .object({ timeoutMs: vine.number({ strict: true }).withoutDecimals().min(1) })
      .nullable(),
  }),
)
