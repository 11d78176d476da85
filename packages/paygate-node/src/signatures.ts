// The two signature schemes alone, without the client: what Paygate itself signs with (libs/signing).
export * from './standard-webhooks';
export * from './hmac-signature';
