import vine from '@vinejs/vine'

// Values are taken as sent or refused: no trimming, no string-to-number conversion.

/** POST /orders: a product from the catalog, a sensible quantity, a plausible card number. */
export const placeOrderValidator = vine.compile(
  vine.object({
    sku: vine.string().maxLength(64).exists({ table: 'products', column: 'sku' }),
    quantity: vine.number({ strict: true }).withoutDecimals().min(1).max(20),
    // Digits only (no spaces or dashes), then the card check (length and Luhn per network).
    card: vine
      .string()
      .regex(/^[0-9]{12,19}$/)
      .creditCard(),
    // One checkout per cart at a time (the workflow's singleton key); default: the order's own.
    cartId: vine
      .string()
      .regex(/^[A-Za-z0-9_-]{1,64}$/)
      .optional(),
    // Express orders are claimed before standard ones when checkouts back up (run priority).
    express: vine.boolean({ strict: true }).optional(),
  }),
)

/** POST /orders/:id/approve and /reject: who decided (optional). */
export const decisionValidator = vine.compile(
  vine.object({
    by: vine.string().minLength(1).maxLength(100).optional(),
  }),
)
