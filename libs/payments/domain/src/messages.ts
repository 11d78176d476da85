import { formatMoney } from '@paygate/money';
import type { SettledCollectionStatus } from './events';

/** Every text a merchant or customer reads about a service payment, in one place. */
export const MESSAGES = {
  opened: 'Awaiting PRN validation',
  prnValidated: 'PRN validated. Awaiting the collection',
  validationDeferred: 'Awaiting PRN validation: the biller could not be reached, trying again',
  paying: 'Collection completed. Paying the PRN',
  completed: 'PRN paid successfully',
};

/**
 * Why a PRN may not be paid, as the short texts collections appends to "PRN not eligible: ".
 * Amounts are integer minor units.
 */
export const PRN_REASONS = {
  notFound: 'unknown PRN',
  alreadyPaid: 'already paid',
  submitted: 'a payment is already submitted',
  expired: 'expired',
  expiredAt: (expiresAt: string) => `expired at ${expiresAt}`,
  currency: (requested: string, prnCurrency: string) => `currency ${requested} differs from the PRN's ${prnCurrency}`,
  amount: (requested: number, due: number, currency: string) =>
    `amount ${formatMoney(requested, currency)} differs from the PRN's ${formatMoney(due, currency)}`,
  feeNotCovered: 'wallet balance cannot cover the fee',
};

/** The status message of a payment whose PRN was rejected (payment.failed) and of the cancelled collection. */
export const prnNotEligibleMessage = (reason: string) => `PRN not eligible: ${reason}`;

export const paymentRetryMessage = (attempt: number, nextAttemptAt: string) =>
  `Paying the PRN: attempt ${attempt} failed, retrying at ${nextAttemptAt}`;

/** A biller's reason as recorded: never empty (events require text), whatever the biller sent. */
export const billerReason = (reason: string) => reason.trim() || 'no reason given';

export const billerRefusedMessage = (reason: string) => `PRN payment refused by the biller: ${billerReason(reason)}`;

export const retriesExhaustedMessage = (attempts: number) =>
  `PRN payment failed: the biller did not accept it after ${attempts} attempt${attempts === 1 ? '' : 's'}`;

export const collectionNotCompletedMessage = (status: Exclude<SettledCollectionStatus, 'COMPLETED'>) =>
  `PRN not paid: the collection did not complete (${status})`;
