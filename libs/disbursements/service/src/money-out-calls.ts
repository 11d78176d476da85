import { providerReferenceOf } from '@paygate/contracts';
import { ProviderRequestError, type ConnectorRegistry, type MoneyOutOutcome } from '@paygate/connectors';
import { MoneyOut, MoneyOutCall, MoneyOutInput } from '@paygate/disbursements-domain';
import { isSupportedCurrency, toMajorUnits } from '@paygate/money';

const detailOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** The provider's status in the process's words; only a payout can be reversed, so a refund's REVERSED says nothing. */
function statusOf(outcome: MoneyOutOutcome, moneyOut: MoneyOut): MoneyOutInput {
  if (outcome.status === 'REVERSED' && moneyOut.request.kind !== 'PAYOUT')
    return { type: 'StatusUnanswered', detail: `the provider answered REVERSED (${outcome.providerReason})` };
  return { type: 'StatusAnswered', answer: outcome };
}

/** Sent by the provider's payout product: a payout, or a refund paid out to the payer. */
const paidOut = (request: MoneyOut['request']) => request.kind === 'PAYOUT' || request.refundAsPayout === true;

const major = ({ amount, currency }: MoneyOut['request']) =>
  String(isSupportedCurrency(currency) ? toMajorUnits(amount, currency) : amount);

/**
 * The money-out process's calls carried out by the provider's connector (a payout's by its payout capability, a
 * refund's by its refund capability), always with the reference derived from the money-out's stream. A refusal is
 * the provider's word (SendRefused); a time-out, a 5xx or no connection says nothing (SendUnanswered,
 * StatusUnanswered), so nothing is ever failed on one.
 */
export function moneyOutCalls(connectors: () => ConnectorRegistry, notifyUrl: (streamId: string) => string) {
  /**
   * A payout to its number, or a refund of its collection, through the provider's capability for it; a refund its
   * provider cannot make (a part, where it refunds only whole payments) is paid out to the payer.
   */
  function send(request: MoneyOut['request'], reference: string, streamId: string): Promise<void> {
    const common = { reference, amount: major(request), currency: request.currency, notifyUrl: notifyUrl(streamId) };
    if (paidOut(request)) {
      const note = request.kind === 'PAYOUT' ? `Payout ${request.reference}` : `Refund ${request.reference}`;
      return connectors()
        .get(request.providerCode, 'payout')
        .payout.send({
          ...common,
          msisdn: request.msisdn ?? '',
          payerMessage: note,
          payeeNote: request.kind === 'PAYOUT' ? note : (request.reason ?? `Refund of ${request.internalReference}`),
        });
    }
    return connectors()
      .get(request.providerCode, 'refund')
      .refund.send({
        ...common,
        collectionReference: request.internalReference ?? '',
        payerMessage: `Refund ${request.reference}`,
        payeeNote: request.reason ?? `Refund of ${request.internalReference}`,
      });
  }

  const status = (request: MoneyOut['request'], reference: string) =>
    paidOut(request)
      ? connectors().get(request.providerCode, 'payout').payout.status(reference)
      : connectors().get(request.providerCode, 'refund').refund.status(reference);

  return async (call: MoneyOutCall, streamId: string, moneyOut: MoneyOut): Promise<MoneyOutInput> => {
    const { request } = moneyOut;
    const reference = providerReferenceOf(streamId, request.kind);
    if (call.type === 'Send') {
      try {
        await send(request, reference, streamId);
        return { type: 'SendAccepted' };
      } catch (error) {
        if (error instanceof ProviderRequestError) return { type: 'SendRefused', reason: error.code ?? error.message };
        return { type: 'SendUnanswered', detail: detailOf(error) };
      }
    }
    try {
      return statusOf(await status(request, reference), moneyOut);
    } catch (error) {
      return { type: 'StatusUnanswered', detail: detailOf(error) };
    }
  };
}
