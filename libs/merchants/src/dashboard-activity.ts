import { migrate, type SqlDatabase } from '@paygate/sql';
import { MERCHANTS_MIGRATIONS } from './migrations';

/** What a dashboard user did: each action a dashboard page takes that changes or sends something. */
export const ACTIVITY_ACTIONS = {
  resend: 'Callbacks resent',
  callbackUrls: 'Callback URLs changed',
  signingKey: 'Signing key rotated',
  apiKeys: 'API keys rotated',
  testCallback: 'Test callback sent',
  invite: 'User invited',
  role: 'Role changed',
  remove: 'User removed',
  reset: 'Password reset',
  trigger: 'Sandbox event triggered',
  refund: 'Refund requested',
  payout: 'Payout sent',
  approvePayout: 'Payout approved',
} as const;
export type ActivityAction = keyof typeof ACTIVITY_ACTIONS;

export interface ActivityEntry {
  email: string;
  action: ActivityAction;
  /** What it was done to, in a line: a reference, an email, an event. Never a secret. */
  detail: string;
  at: string;
}

/**
 * A merchant's dashboard activity: who rotated a key, changed a callback URL or a role, and when,
 * kept in STORE_URL beside the users. Entries are written after the action succeeded and never
 * changed; the email is kept as it was, so removing a user keeps what they did.
 */
export class DashboardActivity {
  private constructor(
    private readonly sql: SqlDatabase,
    private readonly now: () => Date,
  ) {}

  static async open(sql: SqlDatabase, now: () => Date = () => new Date()): Promise<DashboardActivity> {
    await migrate(sql, MERCHANTS_MIGRATIONS);
    return new DashboardActivity(sql, now);
  }

  async record(merchantId: string, email: string, action: ActivityAction, detail: string): Promise<void> {
    await this.sql.query(
      'insert into dashboard_activity (merchant_id, email, action, detail, at) values ($1, $2, $3, $4, $5)',
      [merchantId, email, action, detail, this.now().toISOString()],
    );
  }

  /** The merchant's latest entries, newest first. */
  async latest(merchantId: string, limit: number): Promise<ActivityEntry[]> {
    const rows = await this.sql.query<{ email: string; action: ActivityAction; detail: string; at: Date | string }>(
      `select email, action, detail, at from dashboard_activity where merchant_id = $1
       order by at desc, id desc limit $2`,
      [merchantId, limit],
    );
    return rows.map((row) => ({ ...row, at: new Date(row.at).toISOString() }));
  }
}
