export * from './currency';
export * from './amount';
export * from './fees';
