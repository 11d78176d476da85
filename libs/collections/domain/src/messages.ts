import { formatMoney } from '@paygate/money';
import type { CollectionCancellationReason, TransactionMethod } from '@paygate/contracts';
import type { CollectionFailureReason } from './events';

/** Every text a merchant or customer reads about a collection, in one place. */
export const MESSAGES = {
  initiatedAwaitingConfirmation: 'Transaction initiated. Pending customer confirmation',
  initiatedProcessing: 'Transaction initiated. Pending processing',
  validatingPrn: 'Transaction initiated. Validating the PRN before collection',
  collectForPaymentAccepted: 'Transaction accepted. The PRN is validated before the customer is asked to pay',
  promptSent: 'Payment prompt sent to the customer. Awaiting PIN approval',
  checkoutOpen: 'Awaiting card payment on the checkout page',
  completed: 'Transaction completed successfully',
  confirmPrompt: (currency: string, amount: number) =>
    `You will receive a prompt to pay ${formatMoney(amount, currency)} on your mobile. Enter PIN to approve payment`,
  confirmRedirect: (currency: string, amount: number) =>
    `Redirect to URL for the payment of ${formatMoney(amount, currency)}`,
};

export function failureMessage(method: TransactionMethod, reason: CollectionFailureReason): string {
  if (reason === 'INSUFFICIENT_FUNDS')
    return method === 'CARD' ? 'Insufficient funds' : 'Balance Insufficient for the transaction';
  if (reason === 'DECLINED') return 'Card declined';
  return 'The provider could not complete the transaction';
}

export function cancellationMessage(method: TransactionMethod, reason: CollectionCancellationReason): string {
  if (reason === 'CONFIRMATION_TIMEOUT') return 'Transaction cancelled: confirmation not received in time';
  if (reason === 'PRN_NOT_ELIGIBLE') return 'PRN not eligible';
  if (reason === 'PRN_VALIDATION_TIMEOUT') return 'Transaction cancelled: the PRN could not be validated in time';
  if (reason === 'CUSTOMER_DECLINED')
    return method === 'CARD'
      ? 'Transaction cancelled by the customer on the checkout page'
      : 'Transaction declined by the customer';
  return method === 'CARD'
    ? 'Transaction cancelled: card checkout expired before payment'
    : 'Transaction cancelled: payment prompt not answered in time';
}
