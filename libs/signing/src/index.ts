export * from './collection-signature';
export * from './standard-webhooks';
