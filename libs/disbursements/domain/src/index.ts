export * from './events';
export * from './money-out';
export * from './money-out-decider';
export * from './money-out-process';
export * from './refund-allocation';
export * from './payout-day';
export * from './event-catalogue';
