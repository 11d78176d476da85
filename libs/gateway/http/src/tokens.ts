export const GATEWAY_CONFIG = Symbol('GatewayConfig');
export const MERCHANTS = Symbol('MerchantAccounts');
export const DASHBOARD_USERS = Symbol('DashboardUsers');
