import { isSupportedCurrency, toMinorUnits } from '@paygate/money';
import type { CollectionDetails } from '../collections/commands';
import type { RefundedCollection } from './commands';

/**
 * What a refund needs of its collection, from the record the merchant sees (amounts back in minor units): the API's
 * POST /v1/refunds and the dashboard's Refund button ask for the same refund of the same record.
 */
export function refundedCollectionOf(record: CollectionDetails): RefundedCollection {
  const currency = record.transaction_currency;
  const paid = isSupportedCurrency(currency) ? toMinorUnits(record.transaction_amount, currency) : undefined;
  return {
    internalReference: record.internal_reference,
    merchantReference: record.merchant_reference,
    status: record.transaction_status,
    transactionMethod: record.transaction_method,
    providerCode: record.provider_code,
    currency,
    transactionAmount: paid?.ok ? paid.minor : 0,
    transactionAccount: record.transaction_account,
  };
}
