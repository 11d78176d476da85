export * from './commands';
export * from './integration';
export * from './vocabulary';
export * from './refunded-collection';
export * from './payout-settings';
