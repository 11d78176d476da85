import type { Acknowledgement } from '@paygate/contracts';
import type { Collection } from './collection';
import { MESSAGES } from './messages';
import { toCollectionRecord } from './record';

/**
 * What the merchant is told when an initialize is accepted; a retry is given `acknowledgedState`'s collection, so the
 * first answer again.
 */
export function initializeAcknowledgement(collection: Collection): Acknowledgement {
  const message = collection.initiated.requireConfirmation
    ? MESSAGES.initiatedAwaitingConfirmation
    : MESSAGES.initiatedProcessing;
  return { message, data: { ...toCollectionRecord(collection) } };
}

/** A collect-for-payment collection is accepted before its PRN is validated: only its references are known to hold. */
export function collectForPaymentAcknowledgement({ initiated }: Collection): Acknowledgement {
  return {
    message: MESSAGES.collectForPaymentAccepted,
    data: { internal_reference: initiated.internalReference, merchant_reference: initiated.merchantReference },
  };
}

/** A confirmed card collection sends the customer to its checkout; mobile money prompts the customer's phone. */
export function confirmAcknowledgement(collection: Collection): Acknowledgement {
  const { currency, transactionAmount, transactionMethod } = collection.initiated;
  if (transactionMethod === 'CARD')
    return {
      message: MESSAGES.confirmRedirect(currency, transactionAmount),
      data: { payment_url: collection.paymentUrl },
    };
  return { message: MESSAGES.confirmPrompt(currency, transactionAmount), data: {} };
}
