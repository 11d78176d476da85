import { toMajorUnits } from '@paygate/money';
import type { CollectionDetails, CollectionRecord } from '@paygate/contracts';
import type { Collection } from './collection';

/** The transaction record of acknowledgements (docs/api.md, The acknowledgement), amounts back in major units. */
export function toCollectionRecord(collection: Collection): CollectionRecord {
  const data = collection.initiated;
  const major = (minor: number) => toMajorUnits(minor, data.currency);
  const record: CollectionRecord = {
    id: data.id,
    merchant_reference: data.merchantReference,
    internal_reference: data.internalReference,
    transaction_type: 'COLLECTION',
    request_currency: data.currency,
    request_amount: major(data.requestAmount),
    transaction_currency: data.currency,
    transaction_amount: major(data.transactionAmount),
    transaction_fee: major(data.fee),
    charge_customer: data.chargeCustomer,
    total_credit: major(data.totalCredit),
    provider_code: data.providerCode,
    transaction_status: collection.status,
    status_message: collection.statusMessage,
    livemode: data.livemode === true,
  };
  if (collection.paymentUrl && collection.phase === 'WITH_PROVIDER') record.payment_url = collection.paymentUrl;
  return record;
}

export function toCollectionDetails(collection: Collection): CollectionDetails {
  return {
    ...toCollectionRecord(collection),
    transaction_method: collection.initiated.transactionMethod,
    transaction_account: collection.transactionAccount ?? null,
    customer_name: collection.initiated.customerName,
    ...(collection.initiated.prn !== undefined && { prn: collection.initiated.prn }),
    created_at: collection.initiated.initiatedAt,
    updated_at: collection.updatedAt,
  };
}
