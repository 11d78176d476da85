import { createHash } from 'node:crypto';
import type { MoneyOutOutcome, ProviderOutcome } from '../port';
import { isRecord, nonEmpty } from '../json';

/** A UUID v4 fixed by `seed`. */
function uuidFrom(seed: string): string {
  const bytes = createHash('sha256').update(seed).digest().subarray(0, 16);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * MoMo wants a UUID v4 X-Reference-Id; deriving it from our reference makes a retried request
 * the same request. Collections in flight depend on this exact derivation: never change it.
 */
export function momoReferenceId(reference: string): string {
  return uuidFrom(`momo:${reference}`);
}

/**
 * The X-Reference-Id of a payout (a Disbursement transfer) and of a refund. Each seed starts with its own word before
 * the first colon, so no reference of one kind ever yields another kind's id (or a collection's, seeded `momo:`): a
 * payout, a refund and a collection sharing our reference never collide. Requests in flight depend on these too.
 */
export function momoTransferReferenceId(reference: string): string {
  return uuidFrom(`momo-transfer:${reference}`);
}

export function momoRefundReferenceId(reference: string): string {
  return uuidFrom(`momo-refund:${reference}`);
}

/** MoMo's FAILED reason, a code string or (older API versions) `{code, message}`. */
function reasonCode(reason: unknown, fallback = 'UNKNOWN'): string {
  return nonEmpty(reason) ?? (isRecord(reason) ? nonEmpty(reason.code) : undefined) ?? fallback;
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

/**
 * The X-Reference-Id a MoMo callback is about, or null when the body is not a callback. The
 * callback body is the status representation, which names our externalId and (in some API
 * versions) the referenceId; the former fixes the latter (momoReferenceId).
 */
export function momoCallbackReference(body: unknown): string | null {
  if (!isRecord(body)) return null;
  const externalId = nonEmpty(body.externalId);
  const referenceId = nonEmpty(body.referenceId) ?? (externalId && momoReferenceId(externalId));
  return referenceId && momoOutcome(body, referenceId) ? referenceId : null;
}

/**
 * A Disbursement transfer's or refund's representation (the status answer and the callback body), normalised;
 * undefined when it is not one. `referenceId` stands in for a missing financialTransactionId.
 */
export function momoMoneyOutOutcome(body: unknown, referenceId: string): MoneyOutOutcome | undefined {
  if (!isRecord(body)) return undefined;
  switch (body.status) {
    case 'PENDING':
      return { status: 'PENDING' };
    case 'SUCCESSFUL':
      return { status: 'SUCCESSFUL', providerTransactionId: nonEmpty(body.financialTransactionId) ?? referenceId };
    case 'FAILED':
      return { status: 'FAILED', providerReason: reasonCode(body.reason) };
    case 'REVERSED':
      return { status: 'REVERSED', providerReason: reasonCode(body.reason, 'REVERSED') };
    default:
      return undefined;
  }
}

/**
 * Our reference a Disbursement callback names (its externalId, which the connector sets to our reference), or null
 * when the body is not a callback of that kind: a transfer's names its payee, a refund's no payer or payee (a
 * collection's callback names its payer).
 */
export function momoMoneyOutCallbackReference(body: unknown, kind: 'transfer' | 'refund'): string | null {
  if (!isRecord(body)) return null;
  const externalId = nonEmpty(body.externalId);
  const shaped = kind === 'transfer' ? isRecord(body.payee) : body.payee === undefined && body.payer === undefined;
  return externalId && shaped && momoMoneyOutOutcome(body, externalId) ? externalId : null;
}
