import { providerReferenceOf } from '@paygate/contracts';
import { ProviderRequestError, type ConnectorRegistry, type MoneyOutOutcome } from '@paygate/connectors';
import { MoneyOut, MoneyOutCall, MoneyOutInput } from '@paygate/disbursements-domain';
import { isSupportedCurrency, toMajorUnits } from '@paygate/money';

const detailOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The provider's status in the process's words; a reversal is a payout's, which refunds never see. */
function statusOf(outcome: MoneyOutOutcome): MoneyOutInput {
  if (outcome.status === 'REVERSED')
    return { type: 'StatusUnanswered', detail: `the provider answered REVERSED (${outcome.providerReason})` };
  return { type: 'StatusAnswered', answer: outcome };
}

/**
 * The money-out process's calls carried out by the provider's connector, always with the reference derived from the
 * money-out's stream. A refusal is the provider's word (SendRefused); a time-out, a 5xx or no connection says
 * nothing (SendUnanswered, StatusUnanswered), so nothing is ever failed on one.
 */
export function moneyOutCalls(connectors: () => ConnectorRegistry, notifyUrl: (streamId: string) => string) {
  return async (call: MoneyOutCall, streamId: string, moneyOut: MoneyOut): Promise<MoneyOutInput> => {
    const { request } = moneyOut;
    const reference = providerReferenceOf(streamId, request.kind);
    const refund = () => connectors().get(request.providerCode, 'refund').refund;
    if (call.type === 'Send') {
      try {
        await refund().send({
          reference,
          collectionReference: request.internalReference ?? '',
          amount: String(
            isSupportedCurrency(request.currency) ? toMajorUnits(request.amount, request.currency) : request.amount,
          ),
          currency: request.currency,
          payerMessage: `Refund ${request.reference}`,
          payeeNote: request.reason ?? `Refund of ${request.internalReference}`,
          notifyUrl: notifyUrl(streamId),
        });
        return { type: 'SendAccepted' };
      } catch (error) {
        if (error instanceof ProviderRequestError) return { type: 'SendRefused', reason: error.code ?? error.message };
        return { type: 'SendUnanswered', detail: detailOf(error) };
      }
    }
    try {
      return statusOf(await refund().status(reference));
    } catch (error) {
      return { type: 'StatusUnanswered', detail: detailOf(error) };
    }
  };
}
