import type { MoneyOutOutcome, ProviderOutcome } from '../port';
import { isRecord, nonEmpty } from '../json';

/** Only a properly masked number is kept (at most the first six and last four digits). */
function maskedCard(card: unknown): string | undefined {
  return isRecord(card) && typeof card.masked === 'string' && /^\d{6}\*+\d{4}$/.test(card.masked)
    ? card.masked
    : undefined;
}

function failed(failureCode: unknown): ProviderOutcome {
  const providerReason = nonEmpty(failureCode) ?? 'failed';
  switch (providerReason) {
    case 'card_declined':
      return { status: 'FAILED', reason: 'DECLINED', providerReason };
    case 'insufficient_funds':
      return { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason };
    default:
      return { status: 'FAILED', reason: 'OTHER', providerReason };
  }
}

/** A checkout session's state (the status answer or a notification), normalised; undefined when it is not one. */
export function cardOutcome(body: Record<string, unknown>, sessionId: string): ProviderOutcome | undefined {
  switch (body.status) {
    case 'open':
      return { status: 'PENDING' };
    case 'succeeded': {
      const maskedAccount = maskedCard(body.card);
      return { status: 'SUCCESSFUL', providerTransactionId: sessionId, ...(maskedAccount && { maskedAccount }) };
    }
    case 'failed':
      return failed(body.failure_code);
    case 'cancelled':
      return { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'cancelled' };
    case 'expired':
      return { status: 'CANCELLED', reason: 'EXPIRED', providerReason: 'expired' };
    default:
      return undefined;
  }
}

/** The session a card provider notification is about, or null when the body is not a notification. */
export function cardNotificationSession(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const sessionId = nonEmpty(body.session_id);
  return sessionId && nonEmpty(body.reference) && cardOutcome(body, sessionId) ? sessionId : null;
}

/** A card refund's representation (in a status answer or a notification), normalised; undefined when it is not one. */
export function cardRefundOutcome(body: unknown): MoneyOutOutcome | undefined {
  if (!isRecord(body)) return undefined;
  const refundId = nonEmpty(body.id) ?? nonEmpty(body.refund_id);
  if (!refundId) return undefined;
  switch (body.status) {
    case 'pending':
      return { status: 'PENDING' };
    case 'succeeded':
      return { status: 'SUCCESSFUL', providerTransactionId: refundId };
    case 'failed':
      return { status: 'FAILED', providerReason: nonEmpty(body.failure_code) ?? 'failed' };
    default:
      return undefined;
  }
}

/** Our refund reference a card refund notification names, or null when the body is not one. */
export function cardRefundNotificationReference(body: unknown): string | null {
  if (!isRecord(body) || !nonEmpty(body.refund_id)) return null;
  const reference = nonEmpty(body.reference);
  return reference && cardRefundOutcome(body) ? reference : null;
}
