import { createHash, randomBytes } from 'node:crypto';
import { migrate, type SqlDatabase } from '@paygate/sql';
import { MERCHANTS_MIGRATIONS } from './migrations';
import { decoyHash, hashPassword, verifyPassword } from './passwords';

/** owner: everything; developer: keys, callback settings, resend, sandbox tools; viewer: read only. */
export const DASHBOARD_ROLES = ['owner', 'developer', 'viewer'] as const;
export type DashboardRole = (typeof DASHBOARD_ROLES)[number];

/** A person who signs in to a merchant's dashboard: no password or token in here. */
export interface DashboardUser {
  id: string;
  merchantId: string;
  email: string;
  role: DashboardRole;
  /** False until the invite was used to set a password. */
  active: boolean;
  createdAt: string;
}

export interface DashboardSession {
  /** The cookie's value: only its hash is stored. */
  id: string;
  /** Every form of the session carries it (synchronizer token). */
  csrfToken: string;
  expiresAt: string;
}

export const INVITE_VALID_MS = 24 * 60 * 60 * 1000;
export const SESSION_VALID_MS = 12 * 60 * 60 * 1000;

/** An address a person can receive mail at, as far as a form can tell; compared lowercased. */
export const EMAIL = /^[^\s@\u0000]{1,64}@[^\s@\u0000]{1,189}\.[^\s@\u0000]{1,63}$/;

interface UserRow {
  id: string;
  merchant_id: string;
  email: string;
  role: DashboardRole;
  password_hash: string | null;
  created_at: Date | string;
}

const toUser = (row: UserRow): DashboardUser => ({
  id: row.id,
  merchantId: row.merchant_id,
  email: row.email,
  role: row.role,
  active: row.password_hash !== null,
  createdAt: new Date(row.created_at).toISOString(),
});

const USER_FIELDS = ['id', 'merchant_id', 'email', 'role', 'password_hash', 'created_at'];
/** A write's RETURNING list: SQLite takes no table name there. */
const USER_COLUMNS = USER_FIELDS.join(', ');
/** A join's, from `dashboard_users u`. */
const USER_COLUMNS_OF_U = USER_FIELDS.map((field) => `u.${field}`).join(', ');
const token = () => randomBytes(32).toString('base64url');
const digest = (value: string) => createHash('sha256').update(value).digest('hex');

/** What a sign-in gives: a session, or the accounts to choose from when the password opens more than one. */
export type SignIn =
  { user: DashboardUser; session: DashboardSession } | { choose: { merchantId: string; merchantName: string }[] };

/**
 * Dashboard users of merchant accounts, their invites and their sessions, in STORE_URL. Invite
 * tokens and session ids are bearer secrets: only their SHA-256 is stored, so the table alone
 * signs no one in. A user is an email within one merchant: the same person may be a user of
 * several merchants, each invited by its own owner, who learns nothing of the others.
 */
export class DashboardUsers {
  private constructor(
    private readonly sql: SqlDatabase,
    private readonly now: () => Date,
  ) {}

  static async open(sql: SqlDatabase, now: () => Date = () => new Date()): Promise<DashboardUsers> {
    await migrate(sql, MERCHANTS_MIGRATIONS);
    return new DashboardUsers(sql, now);
  }

  /**
   * A new user of `merchantId`, with a one-time invite valid for INVITE_VALID_MS; null when the
   * email already is one of its users.
   */
  async invite(
    merchantId: string,
    email: string,
    role: DashboardRole,
  ): Promise<{ user: DashboardUser; inviteToken: string; expiresAt: string } | null> {
    const inviteToken = token();
    const expiresAt = this.later(INVITE_VALID_MS);
    return this.sql.transaction(async (tx) => {
      const [row] = await tx.query<UserRow>(
        `insert into dashboard_users (id, merchant_id, email, role) values ($1, $2, $3, $4)
         on conflict (merchant_id, email) do nothing returning ${USER_COLUMNS}`,
        [`usr_${randomBytes(12).toString('base64url')}`, merchantId, email.toLowerCase(), role],
      );
      if (!row) return null;
      await tx.query('insert into dashboard_invites (token_hash, user_id, expires_at) values ($1, $2, $3)', [
        digest(inviteToken),
        row.id,
        expiresAt,
      ]);
      return { user: toUser(row), inviteToken, expiresAt };
    });
  }

  /** The user an unused, unexpired invite is for. */
  async invited(inviteToken: string): Promise<DashboardUser | null> {
    const [row] = await this.sql.query<UserRow>(
      `select ${USER_COLUMNS_OF_U} from dashboard_invites i join dashboard_users u on u.id = i.user_id
       where i.token_hash = $1 and i.used_at is null and i.expires_at > $2`,
      [digest(inviteToken), this.now().toISOString()],
    );
    return row ? toUser(row) : null;
  }

  /** Sets the invited user's password and spends the invite; null when it was used, expired or never given. */
  async acceptInvite(inviteToken: string, password: string): Promise<DashboardUser | null> {
    const hash = await hashPassword(password);
    // Spent first: of two acceptances at once, the one that waited finds it spent.
    return this.sql.transaction(async (tx) => {
      const [spent] = await tx.query<{ user_id: string }>(
        `update dashboard_invites set used_at = $2 where token_hash = $1 and used_at is null and expires_at > $2
         returning user_id`,
        [digest(inviteToken), this.now().toISOString()],
      );
      if (!spent) return null;
      const [row] = await tx.query<UserRow>(
        `update dashboard_users set password_hash = $2 where id = $1 returning ${USER_COLUMNS}`,
        [spent.user_id, hash],
      );
      return toUser(row);
    });
  }

  /**
   * A new session when `password` is the user's; null otherwise, as slowly for an unknown email
   * as for a wrong password, so the answer does not tell which emails have users. An email with
   * users at several merchants signs in to the one whose password it is; when the password is
   * that of more than one, the caller chooses (`merchantId`) among the accounts it opened.
   */
  async signIn(email: string, password: string, merchantId?: string): Promise<SignIn | null> {
    const rows = await this.sql.query<UserRow & { merchant_name: string }>(
      `select ${USER_COLUMNS_OF_U}, m.name as merchant_name from dashboard_users u join merchants m on m.id = u.merchant_id
       where u.email = $1 and (cast($2 as text) is null or u.merchant_id = $2) order by u.created_at, u.id`,
      [email.toLowerCase(), merchantId ?? null],
    );
    const opened: typeof rows = [];
    for (const row of rows)
      if (row.password_hash && (await verifyPassword(password, row.password_hash))) opened.push(row);
    if (rows.length === 0) await verifyPassword(password, await decoyHash());
    if (opened.length === 0) return null;
    if (opened.length > 1)
      return { choose: opened.map((row) => ({ merchantId: row.merchant_id, merchantName: row.merchant_name })) };
    const [row] = opened;
    const session = { id: token(), csrfToken: token(), expiresAt: this.later(SESSION_VALID_MS) };
    await this.sql.query(
      'insert into dashboard_sessions (id_hash, user_id, csrf_token, expires_at) values ($1, $2, $3, $4)',
      [digest(session.id), row.id, session.csrfToken, session.expiresAt],
    );
    return { user: toUser(row), session };
  }

  /** The signed-in user of an unexpired session, with the session's CSRF token. */
  async session(sessionId: string): Promise<{ user: DashboardUser; csrfToken: string } | null> {
    const [row] = await this.sql.query<UserRow & { csrf_token: string }>(
      `select ${USER_COLUMNS_OF_U}, s.csrf_token from dashboard_sessions s join dashboard_users u on u.id = s.user_id
       where s.id_hash = $1 and s.expires_at > $2`,
      [digest(sessionId), this.now().toISOString()],
    );
    return row ? { user: toUser(row), csrfToken: row.csrf_token } : null;
  }

  /** Signing out: the session is gone, whoever holds its cookie. */
  async endSession(sessionId: string): Promise<void> {
    await this.sql.query('delete from dashboard_sessions where id_hash = $1', [digest(sessionId)]);
  }

  async list(merchantId: string): Promise<DashboardUser[]> {
    const rows = await this.sql.query<UserRow>(
      `select ${USER_COLUMNS} from dashboard_users where merchant_id = $1 order by created_at, email`,
      [merchantId],
    );
    return rows.map(toUser);
  }

  /** Another role for one of `merchantId`'s users: their sessions carry it at once. */
  async changeRole(merchantId: string, userId: string, role: DashboardRole): Promise<DashboardUser | null> {
    const [row] = await this.sql.query<UserRow>(
      `update dashboard_users set role = $3 where id = $2 and merchant_id = $1 returning ${USER_COLUMNS}`,
      [merchantId, userId, role],
    );
    return row ? toUser(row) : null;
  }

  /**
   * A forgotten password, reset by an owner: the user's password, sessions and earlier invites end
   * at once, and a new one-time link (valid INVITE_VALID_MS) sets a new password. Null when
   * `userId` is not one of `merchantId`'s users.
   */
  async resetPassword(
    merchantId: string,
    userId: string,
  ): Promise<{ user: DashboardUser; inviteToken: string; expiresAt: string } | null> {
    const inviteToken = token();
    const expiresAt = this.later(INVITE_VALID_MS);
    return this.sql.transaction(async (tx) => {
      const [row] = await tx.query<UserRow>(
        `update dashboard_users set password_hash = null where id = $2 and merchant_id = $1
         returning ${USER_COLUMNS}`,
        [merchantId, userId],
      );
      if (!row) return null;
      await tx.query('delete from dashboard_sessions where user_id = $1', [userId]);
      await tx.query('delete from dashboard_invites where user_id = $1', [userId]);
      await tx.query('insert into dashboard_invites (token_hash, user_id, expires_at) values ($1, $2, $3)', [
        digest(inviteToken),
        userId,
        expiresAt,
      ]);
      return { user: toUser(row), inviteToken, expiresAt };
    });
  }

  /** Removes one of `merchantId`'s users, their invite and their sessions. */
  async remove(merchantId: string, userId: string): Promise<boolean> {
    const rows = await this.sql.query('delete from dashboard_users where id = $2 and merchant_id = $1 returning id', [
      merchantId,
      userId,
    ]);
    return rows.length > 0;
  }

  private later(ms: number): string {
    return new Date(this.now().getTime() + ms).toISOString();
  }
}
