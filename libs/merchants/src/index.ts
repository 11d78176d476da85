export * from './merchant-accounts';
export * from './secret-box';
