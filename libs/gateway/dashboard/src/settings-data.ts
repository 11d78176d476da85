import type { FastifyReply } from 'fastify';
import type { DashboardActivity, DashboardUsers, MerchantAccounts } from '@paygate/merchants';
import { sendPage } from './responses';
import { may } from './roles';
import { PROBLEMS, type Chrome } from './views/layout';
import { settingsPage, type SettingsView } from './views/settings';

/** How many of the merchant's latest dashboard actions Settings lists. */
const ACTIVITY_SHOWN = 20;

/** The settings page as its GET and every action after it show it: the merchant, its users and their activity. */
export class SettingsData {
  constructor(
    private readonly merchants: MerchantAccounts,
    private readonly users: DashboardUsers,
    private readonly activity: DashboardActivity,
  ) {}

  async send(reply: FastifyReply, status: number, chrome: Chrome, shown: Partial<SettingsView> = {}): Promise<void> {
    const { merchantId, role } = chrome.signedIn.user;
    const [merchant, users, activity] = await Promise.all([
      this.merchants.get(merchantId),
      this.users.list(merchantId),
      this.activity.latest(merchantId, ACTIVITY_SHOWN),
    ]);
    if (!merchant) return sendPage(reply, 404, PROBLEMS.merchantGone(chrome));
    sendPage(
      reply,
      status,
      settingsPage(chrome, {
        merchant,
        users,
        activity,
        canConfigure: may(role, 'configure'),
        canManageUsers: may(role, 'manageUsers'),
        ...shown,
      }),
    );
  }
}
