import vine from '@vinejs/vine'

/** POST /orders: a product from the catalog, a sensible quantity, a plausible card number. */
export const placeOrderValidator = vine.compile(
  vine.object({
    sku: vine.string().trim().maxLength(64).exists({ table: 'products', column: 'sku' }),
    quantity: vine.number({ strict: true }).withoutDecimals().min(1).max(20),
    card: vine.string().trim().creditCard(),
  }),
)

/** POST /orders/:id/approve and /reject: who decided (optional). */
export const decisionValidator = vine.compile(
  vine.object({
    by: vine.string().trim().minLength(1).maxLength(100).optional(),
  }),
)
