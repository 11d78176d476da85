import { createHash } from 'node:crypto';
import type { RefundRecord } from '@paygate/contracts';
import type { MoneyOut } from '@paygate/disbursements-domain';
import { isSupportedCurrency, toMajorUnits } from '@paygate/money';

const major = (minor: number, currency: string) =>
  isSupportedCurrency(currency) ? toMajorUnits(minor, currency) : minor;

/** A refund as the merchant API shows it (amounts in major units). */
export function toRefundRecord(moneyOut: MoneyOut): RefundRecord {
  const { request } = moneyOut;
  return {
    refund_reference: request.reference,
    internal_reference: request.internalReference ?? '',
    amount: major(request.amount, request.currency),
    currency: request.currency,
    status: moneyOut.status,
    pending_reason: moneyOut.status === 'PENDING' ? (moneyOut.pendingReason ?? 'provider_processing') : null,
    failure_reason: moneyOut.failureReason,
    reason: request.reason,
    created_at: request.requestedAt,
    updated_at: moneyOut.updatedAt,
  };
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/**
 * The reference a provider knows a money-out by: derived from its stream (the merchant and the merchant's reference),
 * so every retry, from any process, is the same request at the provider; short and plain (`RF`/`PO` + 24 of
 * Crockford's base 32), whatever the merchant's reference holds.
 */
export function providerReferenceOf(streamId: string, kind: 'REFUND' | 'PAYOUT'): string {
  const digest = createHash('sha256').update(streamId, 'utf8').digest();
  let out = kind === 'REFUND' ? 'RF' : 'PO';
  for (let i = 0; i < 24; i++) out += ALPHABET[digest[i] % 32];
  return out;
}
