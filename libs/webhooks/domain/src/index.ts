export * from './collection-callbacks';
export * from './service-payment-callbacks';
export * from './callback-order';
export * from './test-callback';
export * from './refund-callbacks';
export * from './payout-callbacks';
