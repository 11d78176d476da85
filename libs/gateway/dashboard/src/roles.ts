import type { DashboardRole } from '@paygate/merchants';

/**
 * What each role may do beyond reading (issue #29): owners everything, developers keys, callback
 * settings, resends and sandbox tools, viewers nothing; only owners move money (issue #36). Pages
 * show an action's button only to a role that may take it, and the action answers 403 to any other.
 */
const ALLOWED = {
  moneyOut: ['owner'],
  resend: ['owner', 'developer'],
  configure: ['owner', 'developer'],
  sandbox: ['owner', 'developer'],
  manageUsers: ['owner'],
} satisfies Record<string, readonly DashboardRole[]>;

export type DashboardAction = keyof typeof ALLOWED;

export const may = (role: DashboardRole, action: DashboardAction): boolean =>
  (ALLOWED[action] as readonly DashboardRole[]).includes(role);
