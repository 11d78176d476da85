export const DASHBOARD_USERS = Symbol('DashboardUsers');
export const DASHBOARD_SESSIONS = Symbol('DashboardSessions');
export const DASHBOARD_CONFIG = Symbol('DashboardConfig');
export const MERCHANT_ACCOUNTS = Symbol('MerchantAccounts');
export const SIGN_IN_ATTEMPTS = Symbol('SignInAttempts');
export const DASHBOARD_ACTIVITY = Symbol('DashboardActivity');
export const SETTINGS_DATA = Symbol('SettingsData');
export const FORM_TOKENS = Symbol('FormTokens');
