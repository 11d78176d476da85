import { refundedCollectionOf, type CollectionDetails, type RefundRecord } from '@paygate/contracts';
import { isSupportedCurrency, toMinorUnits } from '@paygate/money';

/**
 * What is left to refund of a collection, integer minor units: what the payer paid less its refunds that completed or
 * are still in flight (a FAILED one gave its share back). The disbursements context checks the same sum when the
 * refund is asked for; this is what the form shows beforehand.
 */
export function leftToRefund(record: CollectionDetails, refunds: RefundRecord[]): number {
  const { transactionAmount, currency } = refundedCollectionOf(record);
  const minor = (major: number) => {
    const converted = isSupportedCurrency(currency) ? toMinorUnits(major, currency) : undefined;
    return converted?.ok ? converted.minor : 0;
  };
  const taken = refunds
    .filter((refund) => refund.status !== 'FAILED')
    .reduce((sum, refund) => sum + minor(refund.amount), 0);
  return Math.max(0, transactionAmount - taken);
}
