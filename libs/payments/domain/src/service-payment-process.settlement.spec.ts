import { onCollectionSettled } from './service-payment-process';
import { at, collection, REF } from './payments-test-setup';

/** The process when a collection settles: what is credited to the wallet and what is recorded on the payment. */
const now = { now: at(60) };
const WALLET = { merchantId: 'merchant-1', currency: 'UGX' };
const credit = (totalCredit: number, fee: number) => ({ type: 'CreditCollection', wallet: WALLET, internalReference: REF, totalCredit, fee, at: at(60) });
const record = (collectionStatus: string, collectionStatusMessage: string) => ({
  type: 'RecordCollectionSettled',
  collectionStatus,
  collectionStatusMessage,
  at: at(60),
});

describe('the process when a collection settles', () => {
  it('given a completed collection without a PRN, then the wallet is credited its total credit and fee, and no payment is involved', () => {
    const settled = collection({ status: 'COMPLETED', statusMessage: 'Transaction completed successfully', prn: undefined });
    expect(onCollectionSettled(settled, now)).toEqual({ credit: credit(79785, 1215), record: null });
  });

  it('given a completed collect-for-payment collection, then the wallet is credited and the settlement is recorded on its payment', () => {
    const settled = collection({ status: 'COMPLETED', statusMessage: 'Transaction completed successfully', prn: '2250000123456' });
    expect(onCollectionSettled(settled, now)).toEqual({ credit: credit(79785, 1215), record: record('COMPLETED', 'Transaction completed successfully') });
  });

  it('given a completed collection that leaves nothing to credit, then nothing is credited', () => {
    const settled = collection({ status: 'COMPLETED', statusMessage: 'Transaction completed successfully', totalCredit: 0, fee: 500, prn: undefined });
    expect(onCollectionSettled(settled, now)).toEqual({ credit: null, record: null });
  });

  it.each(['FAILED', 'CANCELLED'] as const)(
    'given a %s collect-for-payment collection, then nothing is credited and the payment records it (and fails)',
    (status) => {
      const settled = collection({ status, statusMessage: 'Transaction failed', prn: '2250000123456' });
      expect(onCollectionSettled(settled, now)).toEqual({ credit: null, record: record(status, 'Transaction failed') });
    },
  );

  it('given a collection still PENDING, then it has not settled and nothing happens', () => {
    expect(onCollectionSettled(collection({ status: 'PENDING', prn: '2250000123456' }), now)).toEqual({ credit: null, record: null });
  });
});
