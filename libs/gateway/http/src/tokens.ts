export const GATEWAY_CONFIG = Symbol('GatewayConfig');
export const MERCHANTS = Symbol('MerchantAccounts');
