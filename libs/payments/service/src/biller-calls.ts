import {
  ProviderRequestError,
  ProviderUnavailableError,
  type Bill,
  type BillPayment,
  type BillPaymentOperations,
} from '@paygate/connectors';
import type { BillerPaymentAnswer, PaymentCall, PaymentInput } from '@paygate/payments-domain';

const answerOf = (payment: BillPayment): BillerPaymentAnswer =>
  payment.status === 'SUCCESSFUL'
    ? { status: 'SUCCESSFUL', billerPaymentId: payment.providerTransactionId, receiptNumber: payment.receiptNumber }
    : { status: 'PENDING' };

const detailsOf = (bill: Bill) => ({
  prn: bill.prn,
  status: bill.status,
  amount: bill.amount,
  currency: bill.currency,
  expiresAt: bill.expiresAt,
  taxpayerName: bill.payerName,
});

/**
 * The service payment process's calls carried out by the biller's connector. The biller's
 * answers, refusals and unavailability are inputs the process decides on; anything else (a bug,
 * a malformed answer) is an error that ends the run.
 */
export function billerCalls(biller: () => BillPaymentOperations) {
  const carryOut = async (call: PaymentCall): Promise<PaymentInput> => {
    switch (call.type) {
      case 'LookUpPrn': {
        const validation = await biller().validate(call.prn);
        return validation.found
          ? { type: 'PrnLookedUp', details: detailsOf(validation.bill), serviceName: validation.bill.serviceName }
          : { type: 'PrnLookedUp', details: null };
      }
      case 'PayBiller':
        try {
          return { type: 'BillerAnswered', answer: answerOf(await biller().pay(call.request)) };
        } catch (error) {
          if (error instanceof ProviderRequestError)
            return { type: 'BillerRefused', reason: error.code ?? error.message };
          throw error;
        }
      case 'AskBiller': {
        const made = await biller().status(call.idempotencyKey);
        return made.status === 'NOT_FOUND'
          ? { type: 'BillerKnowsNoPayment' }
          : { type: 'BillerAnswered', answer: answerOf(made) };
      }
    }
  };
  return (call: PaymentCall): Promise<PaymentInput> =>
    carryOut(call).catch((error: unknown) => {
      // Asking what became of a payment: any failure to say counts as not knowing, for the process to weigh.
      if (error instanceof ProviderUnavailableError || call.type === 'AskBiller') {
        return {
          type: 'BillerUnreachable',
          call: call.type,
          reason: error instanceof Error ? error.message : String(error),
          error,
        };
      }
      throw error;
    });
}
