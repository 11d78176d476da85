export const DASHBOARD_USERS = Symbol('DashboardUsers');
export const SIGN_IN_LIMITER = Symbol('SignInLimiter');
