import type { MoneyOutAttentionItem, PayoutRecord, RefundRecord } from '@paygate/contracts';
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

/** A payout as the merchant API shows it (amounts in major units). */
export function toPayoutRecord(moneyOut: MoneyOut): PayoutRecord {
  const { request } = moneyOut;
  return {
    payout_reference: request.reference,
    amount: major(request.amount, request.currency),
    fee: major(request.fee, request.currency),
    currency: request.currency,
    provider_code: request.providerCode,
    msisdn: request.msisdn ?? '',
    recipient_name: request.recipientName,
    status: moneyOut.status,
    pending_reason: moneyOut.status === 'PENDING' ? (moneyOut.pendingReason ?? 'provider_processing') : null,
    failure_reason: moneyOut.failureReason,
    livemode: request.livemode,
    created_at: request.requestedAt,
    updated_at: moneyOut.updatedAt,
  };
}

/** A refund or payout flagged for operators, as the admin API lists it (amounts in major units). */
export function toAttentionItem(moneyOut: MoneyOut): MoneyOutAttentionItem {
  const { request } = moneyOut;
  return {
    kind: request.kind,
    merchant_id: request.merchantId,
    reference: request.reference,
    amount: major(request.amount, request.currency),
    currency: request.currency,
    provider_code: request.providerCode,
    status: moneyOut.status,
    pending_reason: moneyOut.status === 'PENDING' ? (moneyOut.pendingReason ?? 'provider_processing') : null,
    sends: moneyOut.sends,
    created_at: request.requestedAt,
    updated_at: moneyOut.updatedAt,
  };
}
