import { randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { lockInTransaction } from '@paygate/sql';
import { hundredths } from '../validation';

export type CardRefundStatus = 'pending' | 'succeeded' | 'failed';

export interface NewCardRefund {
  reference: string;
  /** The reference the charge's checkout session was opened with. */
  paymentReference: string;
  amount: string;
  currency: string;
  description?: string;
  notifyUrl: string;
}

export interface CardRefund extends Omit<NewCardRefund, 'paymentReference'> {
  id: string;
  sessionId: string;
  status: CardRefundStatus;
  failureCode?: string;
  resolvesAt: Date;
  /** Requests that named this reference: 1 when it was sent once. */
  requestsReceived: number;
}

/** The charge a refund is checked against, and what earlier refunds (not failed) took of it. */
export interface RefundedCharge {
  sessionId: string;
  amount: string;
  currency: string;
  refundedHundredths: number;
}

interface Row {
  id: string;
  reference: string;
  session_id: string;
  amount: string;
  currency: string;
  description: string | null;
  notify_url: string;
  status: CardRefundStatus;
  failure_code: string | null;
  resolves_at: Date | string;
  requests_received: number;
}

function fromRow(row: Row): CardRefund {
  return {
    id: row.id,
    reference: row.reference,
    sessionId: row.session_id,
    amount: row.amount,
    currency: row.currency,
    description: row.description ?? undefined,
    notifyUrl: row.notify_url,
    status: row.status,
    failureCode: row.failure_code ?? undefined,
    resolvesAt: new Date(row.resolves_at),
    requestsReceived: Number(row.requests_received),
  };
}

/** Refunds of card charges (sandbox_card_refunds), one per refund reference. */
@Injectable()
export class CardRefundStore {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  /**
   * Counts one more request for a reference already refunding (`created: false`); otherwise, under a lock on the
   * charge, `decide` refuses it (by throwing) or answers when its outcome is known, from the succeeded session
   * charged under the payment reference (undefined when there is none), and it is recorded.
   */
  async record(
    refund: NewCardRefund,
    decide: (charge: RefundedCharge | undefined) => Date,
  ): Promise<{ created: boolean; refund: CardRefund }> {
    return this.infrastructure.sql.transaction(async (tx) => {
      await lockInTransaction(tx, `sandbox-card-refund:${refund.paymentReference}`);
      const [repeated] = await tx.query<Row>(
        'update sandbox_card_refunds set requests_received = requests_received + 1 where reference = $1 returning *',
        [refund.reference],
      );
      if (repeated) return { created: false, refund: fromRow(repeated) };
      const [session] = await tx.query<{ id: string; amount: string; currency: string }>(
        `select id, amount, currency from sandbox_card_sessions where reference = $1 and status = 'succeeded'
         order by created_at desc limit 1`,
        [refund.paymentReference],
      );
      const refunds = session
        ? await tx.query<{ amount: string }>(
            `select amount from sandbox_card_refunds where session_id = $1 and status <> 'failed'`,
            [session.id],
          )
        : [];
      const resolvesAt = decide(
        session && {
          sessionId: session.id,
          amount: session.amount,
          currency: session.currency,
          refundedHundredths: refunds.reduce((sum, { amount }) => sum + hundredths(amount), 0),
        },
      );
      const [row] = await tx.query<Row>(
        `insert into sandbox_card_refunds
           (id, reference, session_id, amount, currency, description, notify_url, resolves_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8)
         on conflict (reference) do update set requests_received = sandbox_card_refunds.requests_received + 1
         returning *`,
        [
          `re_${randomBytes(12).toString('hex')}`,
          refund.reference,
          session!.id,
          refund.amount,
          refund.currency,
          refund.description ?? null,
          refund.notifyUrl,
          resolvesAt.toISOString(),
        ],
      );
      const stored = fromRow(row);
      return { created: stored.requestsReceived === 1, refund: stored };
    });
  }

  async find(reference: string): Promise<CardRefund | undefined> {
    const [row] = await this.infrastructure.sql.query<Row>('select * from sandbox_card_refunds where reference = $1', [
      reference,
    ]);
    return row && fromRow(row);
  }

  /** Records the outcome of a pending refund; the refund as it now stands. */
  async settle(
    reference: string,
    status: 'succeeded' | 'failed',
    failureCode?: string,
  ): Promise<CardRefund | undefined> {
    await this.infrastructure.sql.query(
      `update sandbox_card_refunds set status = $2, failure_code = $3 where reference = $1 and status = 'pending'`,
      [reference, status, failureCode ?? null],
    );
    return this.find(reference);
  }
}
