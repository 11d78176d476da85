export * from './dashboard-users';
export * from './merchant-accounts';
export { MERCHANTS_MIGRATIONS } from './migrations';
export * from './secret-box';
export * from './sign-in-attempts';
export * from './dashboard-activity';
