// Driving a running Paygate from outside: the merchant's client, a callback receiver, the sandbox's admin routes, waits
// and whole outcomes.
export * from './wait';
export * from './paygate-client';
export * from './callback-receiver';
export * from './sandbox-admin';
export * from './collection-outcomes';
export * from './collect-for-payment-outcomes';
export * from './collect-for-payment-faults';
export * from './response-validator';
export * from './refund-outcomes';
export * from './payout-outcomes';
