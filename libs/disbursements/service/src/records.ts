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
    // A refund is never held for approval nor reversed: PENDING, COMPLETED or FAILED.
    status: moneyOut.status as RefundRecord['status'],
    pending_reason: moneyOut.status === 'PENDING' ? (moneyOut.pendingReason ?? 'provider_processing') : null,
    failure_reason: moneyOut.failureReason,
    reason: request.reason,
    livemode: request.livemode,
    created_at: request.requestedAt,
    updated_at: moneyOut.updatedAt,
  };
}
