import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { lockInTransaction } from '@paygate/sql';

/** As stored; `expired` is derived from `open` and the clock. */
export type StoredSessionStatus = 'open' | 'succeeded' | 'failed' | 'cancelled';
export type SessionStatus = StoredSessionStatus | 'expired';

export interface NewCheckoutSession {
  reference: string;
  amount: string;
  currency: string;
  description?: string;
  notifyUrl: string;
  returnUrl: string;
  expiresAt: Date;
}

export interface CheckoutSession extends NewCheckoutSession {
  id: string;
  status: SessionStatus;
  failureCode?: string;
  card?: { last4: string; masked: string };
}

export interface SessionOutcome {
  status: 'succeeded' | 'failed' | 'cancelled';
  failureCode?: string;
  card?: { last4: string; masked: string };
}

interface Row {
  id: string;
  reference: string;
  amount: string;
  currency: string;
  description: string | null;
  notify_url: string;
  return_url: string;
  expires_at: Date | string;
  status: StoredSessionStatus;
  failure_code: string | null;
  card_last4: string | null;
  card_masked: string | null;
}

function fromRow(row: Row): CheckoutSession {
  const expiresAt = new Date(row.expires_at);
  return {
    id: row.id,
    reference: row.reference,
    amount: row.amount,
    currency: row.currency,
    description: row.description ?? undefined,
    notifyUrl: row.notify_url,
    returnUrl: row.return_url,
    expiresAt,
    status: row.status === 'open' && expiresAt.getTime() <= Date.now() ? 'expired' : row.status,
    failureCode: row.failure_code ?? undefined,
    card:
      row.card_last4 !== null && row.card_masked !== null
        ? { last4: row.card_last4, masked: row.card_masked }
        : undefined,
  };
}

@Injectable()
export class CardStore {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  /** Answers the reference's open session when there is one, so a retried create opens no second checkout. */
  async open(session: NewCheckoutSession): Promise<CheckoutSession> {
    return this.infrastructure.sql.transaction(async (tx) => {
      await lockInTransaction(tx, `sandbox-card:${session.reference}`);
      const [existing] = await tx.query<Row>(
        `select * from sandbox_card_sessions where reference = $1 and status = 'open' and expires_at > $2 order by created_at desc limit 1`,
        [session.reference, new Date().toISOString()],
      );
      if (existing) return fromRow(existing);
      const [created] = await tx.query<Row>(
        `insert into sandbox_card_sessions (id, reference, amount, currency, description, notify_url, return_url, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
        [
          `cs_${randomBytes(12).toString('hex')}`,
          session.reference,
          session.amount,
          session.currency,
          session.description ?? null,
          session.notifyUrl,
          session.returnUrl,
          session.expiresAt.toISOString(),
        ],
      );
      return fromRow(created);
    });
  }

  async find(id: string): Promise<CheckoutSession | undefined> {
    const [row] = await this.infrastructure.sql.query<Row>('select * from sandbox_card_sessions where id = $1', [id]);
    return row && fromRow(row);
  }

  /** Closes a still open, unexpired session; undefined when it was no longer open. */
  async close(id: string, outcome: SessionOutcome): Promise<CheckoutSession | undefined> {
    const [row] = await this.infrastructure.sql.query<Row>(
      `update sandbox_card_sessions set status = $2, failure_code = $3, card_last4 = $4, card_masked = $5
       where id = $1 and status = 'open' and expires_at > $6 returning *`,
      [
        id,
        outcome.status,
        outcome.failureCode ?? null,
        outcome.card?.last4 ?? null,
        outcome.card?.masked ?? null,
        new Date().toISOString(),
      ],
    );
    return row && fromRow(row);
  }
}
