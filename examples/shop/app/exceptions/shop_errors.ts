/** The shop's HTTP errors, each with a stable code (rendered by app/exceptions/handler.ts). */
import { createError } from '@adonisjs/core/exceptions'

export const E_ORDER_NOT_FOUND = createError<[string]>('No order %s', 'E_ORDER_NOT_FOUND', 404)

export const E_NO_APPROVAL_NEEDED = createError<[string]>(
  'Order %s is below the approval threshold: there is nothing to approve',
  'E_NO_APPROVAL_NEEDED',
  409,
)

export const E_ORDER_CLOSED = createError<[string]>(
  'Order %s has finished: it can no longer be approved or rejected',
  'E_ORDER_CLOSED',
  409,
)

export const E_ALREADY_DECIDED = createError<[string]>(
  'Order %s already has a decision: the first approve or reject wins',
  'E_ALREADY_DECIDED',
  409,
)

export const E_CART_BUSY = createError<[string]>(
  'Cart %s has a checkout in progress: place the order again once it has finished',
  'E_CART_BUSY',
  409,
)

export const E_ORDER_WITHOUT_RUN = createError<[string]>(
  'Order %s has no checkout run: it was recorded but its run never started',
  'E_ORDER_WITHOUT_RUN',
  409,
)
