import type { ProviderOutcome } from './provider-connectors';
import { isRecord } from './provider-json';

const nonEmpty = (value: unknown): string | undefined => (typeof value === 'string' && value !== '' ? value : undefined);

/** MoMo's FAILED reason, a code string or (older API versions) `{code, message}`. */
function reasonCode(reason: unknown): string {
  return nonEmpty(reason) ?? (isRecord(reason) ? nonEmpty(reason.code) : undefined) ?? 'UNKNOWN';
}

function failed(reason: string): ProviderOutcome {
  switch (reason) {
    case 'NOT_ENOUGH_FUNDS':
      return { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: reason };
    case 'APPROVAL_REJECTED':
      return { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: reason };
    case 'COULD_NOT_PERFORM_TRANSACTION':
      return { status: 'CANCELLED', reason: 'EXPIRED', providerReason: reason };
    default:
      return { status: 'FAILED', reason: 'OTHER', providerReason: reason };
  }
}

/**
 * MoMo's requesttopay representation (the status answer and the callback body), normalised;
 * undefined when it is not one. `referenceId` stands in for a missing financialTransactionId.
 */
export function momoOutcome(body: unknown, referenceId?: string): ProviderOutcome | undefined {
  if (!isRecord(body)) return undefined;
  switch (body.status) {
    case 'PENDING':
      return { status: 'PENDING' };
    case 'SUCCESSFUL': {
      const providerTransactionId = nonEmpty(body.financialTransactionId) ?? referenceId;
      if (!providerTransactionId) return undefined;
      const partyId = isRecord(body.payer) ? nonEmpty(body.payer.partyId) : undefined;
      return { status: 'SUCCESSFUL', providerTransactionId, ...(partyId && { maskedAccount: partyId }) };
    }
    case 'FAILED':
      return failed(reasonCode(body.reason));
    default:
      return undefined;
  }
}

/** A MoMo callback, parsed and normalised; null when the body is not a valid callback. */
export function parseMobileMoneyCallback(body: unknown): { referenceId?: string; externalId: string; outcome: ProviderOutcome } | null {
  if (!isRecord(body)) return null;
  const externalId = nonEmpty(body.externalId);
  const referenceId = nonEmpty(body.referenceId);
  const outcome = momoOutcome(body, referenceId);
  if (!externalId || !outcome) return null;
  return { ...(referenceId && { referenceId }), externalId, outcome };
}
