import type { PrnDetails, PrnRejectionReason } from '@paygate/contracts';
import { PRN_REASONS } from './messages';

/** Whether a PRN may be paid; a refusal carries its stable code and the text merchants read. */
export type PrnVerdict = { eligible: true } | { eligible: false; reasonCode: PrnRejectionReason; reason: string };

/** What the collection asks to pay: the PRN must be due in this currency and exactly this amount (minor units). */
export interface PrnPaymentRequest {
  currency: string;
  amount: number;
}

const refuse = (reasonCode: PrnRejectionReason, reason: string): PrnVerdict => ({
  eligible: false,
  reasonCode,
  reason,
});

/**
 * The biller's view of a PRN (null: the biller does not know it) against the request, at `now`.
 * Checks run from the most fundamental to the most specific, so the merchant reads the reason
 * that matters (an already paid PRN is "already paid", whatever its amount).
 */
export function checkPrnEligibility(details: PrnDetails | null, request: PrnPaymentRequest, now: string): PrnVerdict {
  if (!details) return refuse('PRN_NOT_FOUND', PRN_REASONS.notFound);
  switch (details.status) {
    case 'PAID':
      return refuse('PRN_ALREADY_PAID', PRN_REASONS.alreadyPaid);
    case 'SUBMITTED':
      return refuse('PRN_SUBMITTED', PRN_REASONS.submitted);
    case 'EXPIRED':
      return refuse('PRN_EXPIRED', PRN_REASONS.expired);
    case 'AVAILABLE':
      break;
  }
  // The biller's status can lag its own expiry, so the date is checked too.
  if (details.expiresAt && Date.parse(now) >= Date.parse(details.expiresAt))
    return refuse('PRN_EXPIRED', PRN_REASONS.expiredAt(details.expiresAt));
  if (details.currency !== request.currency)
    return refuse('CURRENCY_MISMATCH', PRN_REASONS.currency(request.currency, details.currency));
  if (details.amount !== request.amount)
    return refuse('AMOUNT_MISMATCH', PRN_REASONS.amount(request.amount, details.amount, request.currency));
  return { eligible: true };
}

/** The ledger refused the fee hold (charge_customer=false): the merchant cannot bear the fee. */
export const FEE_NOT_COVERED: PrnVerdict = refuse('FEE_NOT_COVERED', PRN_REASONS.feeNotCovered);
