import { createHash } from 'node:crypto';
import { migrate, type SqlDatabase } from '@paygate/sql';
import { MERCHANTS_MIGRATIONS } from './migrations';

export interface SignInLimits {
  /** Attempts for one email from one client address. */
  perEmail: number;
  /** Attempts from one client address, whichever emails. */
  perAddress: number;
  windowMs: number;
}

export const SIGN_IN_LIMITS: SignInLimits = { perEmail: 5, perAddress: 20, windowMs: 5 * 60_000 };

/** Keys name no address or email in the table: only their SHA-256. */
const key = (...parts: string[]) => createHash('sha256').update(parts.join('\u0000')).digest('base64url');

/**
 * Dashboard sign-in attempts, at most `perEmail` for one email from one address and `perAddress`
 * from one address in `windowMs`, so guessing a password is slow whichever email is tried. Kept in
 * the database: every gateway of a deployment counts the same attempts. Two attempts at the same
 * instant may both pass the last free place; the limit holds within that.
 */
export class SignInAttempts {
  private constructor(
    private readonly sql: SqlDatabase,
    private readonly limits: SignInLimits,
    private readonly now: () => Date,
  ) {}

  static async open(
    sql: SqlDatabase,
    limits: SignInLimits = SIGN_IN_LIMITS,
    now: () => Date = () => new Date(),
  ): Promise<SignInAttempts> {
    await migrate(sql, MERCHANTS_MIGRATIONS);
    return new SignInAttempts(sql, limits, now);
  }

  /** Counts an attempt; false when it is over a limit (and then it is not made). */
  async attempt(address: string, email: string): Promise<boolean> {
    const byAddress = key('address', address);
    const byEmail = key('email', address, email.toLowerCase());
    const now = this.now();
    const since = new Date(now.getTime() - this.limits.windowMs).toISOString();
    return this.sql.transaction(async (tx) => {
      // What has aged out is nobody's to count: the table holds one window of attempts.
      await tx.query('delete from dashboard_sign_in_attempts where at <= $1', [since]);
      const [counts] = await tx.query<{ address: string; email: string }>(
        `select count(*) filter (where key = $1) as address, count(*) filter (where key = $2) as email
         from dashboard_sign_in_attempts where key in ($1, $2) and at > $3`,
        [byAddress, byEmail, since],
      );
      if (Number(counts.address) >= this.limits.perAddress || Number(counts.email) >= this.limits.perEmail)
        return false;
      await tx.query('insert into dashboard_sign_in_attempts (key, at) values ($1, $3), ($2, $3)', [
        byAddress,
        byEmail,
        now.toISOString(),
      ]);
      return true;
    });
  }
}
