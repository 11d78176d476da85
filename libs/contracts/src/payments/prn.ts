/**
 * A URA Payment Registration Number and what the biller says about it. The biller connector
 * maps its answer to `PrnDetails` (amount already in integer minor units); the payments domain
 * decides eligibility from it (`checkPrnEligibility` in libs/payments/domain).
 */
export const PRN_PATTERN = '^[0-9]{1,32}$';

export function isPrn(value: unknown): value is string {
  return typeof value === 'string' && new RegExp(PRN_PATTERN).test(value);
}

/** AVAILABLE is the only status that may be paid. */
export type PrnStatus = 'AVAILABLE' | 'PAID' | 'SUBMITTED' | 'EXPIRED';

export interface PrnDetails {
  prn: string;
  status: PrnStatus;
  /** What is due, in integer minor units of `currency`. */
  amount: number;
  currency: string;
  /** ISO 8601; after it the biller no longer accepts payment. */
  expiresAt?: string;
  taxpayerName?: string;
}

/** Why a PRN cannot be paid; stable codes, the texts live with the domain's messages. */
export type PrnRejectionReason =
  | 'PRN_NOT_FOUND'
  | 'PRN_ALREADY_PAID'
  | 'PRN_SUBMITTED'
  | 'PRN_EXPIRED'
  | 'CURRENCY_MISMATCH'
  | 'AMOUNT_MISMATCH'
  /** charge_customer=false and the wallet cannot hold the fee the merchant bears. */
  | 'FEE_NOT_COVERED';

export const PRN_REJECTION_REASONS: readonly PrnRejectionReason[] = [
  'PRN_NOT_FOUND',
  'PRN_ALREADY_PAID',
  'PRN_SUBMITTED',
  'PRN_EXPIRED',
  'CURRENCY_MISMATCH',
  'AMOUNT_MISMATCH',
  'FEE_NOT_COVERED',
];
