import {
  moneyOutStream,
  PAYOUT_STREAM_PREFIX,
  REFUND_STREAM_PREFIX,
  type FindPayoutQuery,
  type FindRefundQuery,
  type ListPayoutApprovalsQuery,
  type ListPayoutsQuery,
  type PayoutApproval,
  type ListRefundsQuery,
  type MoneyOutAttentionItem,
  type PayoutPage,
  type PayoutRecord,
  type RefundPage,
  type RefundRecord,
} from '@paygate/contracts';
import {
  moneyOutDecider,
  MONEY_OUT_EVENT_TYPES as EVENTS,
  type MoneyOut,
  type MoneyOutEvent,
} from '@paygate/disbursements-domain';
import type { EventStore } from '@paygate/event-store';
import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { Projection, type StreamReadModel } from '@paygate/projections';
import { fromJson, migrate, type SqlDatabase } from '@paygate/sql';
import { LeasedTimers, type TimerChange } from '@paygate/timers';
import { DISBURSEMENTS_MIGRATIONS } from './migrations';
import { toAttentionItem, toPayoutRecord, toRefundRecord } from './records';

export type MoneyOutTimerKind = 'reconcile';

/**
 * One timer per money-out, from its acceptance until its hold is settled (a paid payout's: until its reversal watch is
 * over, or its reversal credited): it fires a run of the money-out process (send, ask the provider, cancel a payout
 * never approved), which says when it is due again. The run started by the request is the first; the timer is what
 * runs it after a crash.
 */
export const MONEY_OUT_TIMERS = new LeasedTimers<MoneyOutTimerKind>('money_out_timers', { reconcile: true });

function timerChanges(event: MoneyOutEvent, statusPollMs: number, payout: boolean): TimerChange<MoneyOutTimerKind>[] {
  const pollAfter = (at: string): TimerChange<MoneyOutTimerKind>[] => [
    { type: 'Schedule', kind: 'reconcile', at: new Date(Date.parse(at) + statusPollMs).toISOString() },
  ];
  switch (event.type) {
    case EVENTS.requested:
      return pollAfter(event.data.request.requestedAt);
    case EVENTS.approved:
      // Waiting for approval, the timer was due at the approval deadline: the approved payout is sent sooner.
      return pollAfter(event.data.approvedAt);
    case EVENTS.holdSettled:
      // A paid payout is still watched for a reversal (its run ends the timer when the watch is over).
      return payout && event.data.outcome === 'PAID' ? pollAfter(event.data.settledAt) : [{ type: 'Cancel' }];
    case EVENTS.reversalCredited:
      return [{ type: 'Cancel' }];
    default:
      return [];
  }
}

/** `money_out_view`: one row per refund or payout, with the state the contract's reads answer from. */
function moneyOutView(streamPrefix: string, statusPollMs: number): StreamReadModel<MoneyOutEvent, MoneyOut> {
  return {
    streamPrefix,
    read: moneyOutDecider.read,
    evolve: (row, event) => moneyOutDecider.evolve(row, event),
    table: 'money_out_view',
    key: (streamId) => ({ stream_id: `${streamPrefix}${streamId}` }),
    columns: {
      merchant_id: 'text',
      kind: 'text',
      reference: 'text',
      internal_reference: 'text',
      status: 'text',
      needs_attention: 'integer',
      amount: 'bigint',
      provider_code: 'text',
      currency: 'text',
      created_at: 'text',
      state: 'jsonb',
    },
    toColumns: (moneyOut) => ({
      merchant_id: moneyOut.request.merchantId,
      kind: moneyOut.request.kind,
      reference: moneyOut.request.reference,
      internal_reference: moneyOut.request.internalReference,
      status: moneyOut.status,
      needs_attention: moneyOut.needsAttention ? 1 : 0,
      amount: moneyOut.request.amount,
      provider_code: moneyOut.request.providerCode,
      currency: moneyOut.request.currency,
      created_at: moneyOut.request.requestedAt,
      state: moneyOut,
    }),
    fromColumns: (values) => values.state as MoneyOut,
    async alongside(tx, changes) {
      await MONEY_OUT_TIMERS.apply(
        tx,
        changes.map(({ streamId, event }) => ({
          internalReference: `${streamPrefix}${streamId}`,
          changes: timerChanges(event, statusPollMs, streamPrefix === PAYOUT_STREAM_PREFIX),
        })),
      );
    },
  };
}

/** The disbursements projection (money_out_view and the money-out timers) and the reads the contract makes of it. */
export class DisbursementsProjection extends Projection {
  static async open(sql: SqlDatabase, store: EventStore, statusPollMs: number): Promise<DisbursementsProjection> {
    await migrate(sql, [...JOBS_MIGRATIONS, ...DISBURSEMENTS_MIGRATIONS]);
    return new DisbursementsProjection(
      'disbursements-projection',
      [moneyOutView(REFUND_STREAM_PREFIX, statusPollMs), moneyOutView(PAYOUT_STREAM_PREFIX, statusPollMs)],
      sql,
      store,
    );
  }

  async findRefund({ merchantId, refundReference }: FindRefundQuery): Promise<RefundRecord | null> {
    const [row] = await this.sql.query<{ state: unknown }>('select state from money_out_view where stream_id = $1', [
      moneyOutStream('REFUND', merchantId, refundReference),
    ]);
    return row ? toRefundRecord(this.stateOf(row)) : null;
  }

  /** Newest first, keyset-paged on (created_at, reference). */
  async listRefunds({ merchantId, internalReference, limit, after }: ListRefundsQuery): Promise<RefundPage> {
    const rows = await this.sql.query<{ state: unknown }>(
      `select state from money_out_view
       where merchant_id = $1 and kind = 'REFUND'
         and (cast($2 as text) is null or internal_reference = $2)
         and (cast($3 as text) is null or (created_at, reference) < ($3, $4))
       order by created_at desc, reference desc
       limit $5`,
      [merchantId, internalReference ?? null, after?.createdAt ?? null, after?.refundReference ?? null, limit + 1],
    );
    const refunds = rows.slice(0, limit).map((row) => toRefundRecord(this.stateOf(row)));
    const last = refunds[refunds.length - 1];
    return rows.length > limit && last
      ? { refunds, next: { createdAt: last.created_at, refundReference: last.refund_reference } }
      : { refunds };
  }

  async findPayout({ merchantId, payoutReference }: FindPayoutQuery): Promise<PayoutRecord | null> {
    const [row] = await this.sql.query<{ state: unknown }>('select state from money_out_view where stream_id = $1', [
      moneyOutStream('PAYOUT', merchantId, payoutReference),
    ]);
    return row ? toPayoutRecord(this.stateOf(row)) : null;
  }

  /** Newest first, keyset-paged on (created_at, reference); `from` inclusive, `to` exclusive. */
  async listPayouts(query: ListPayoutsQuery): Promise<PayoutPage> {
    const { merchantId, status, providerCode, from, to, limit, after } = query;
    const rows = await this.sql.query<{ state: unknown }>(
      `select state from money_out_view
       where merchant_id = $1 and kind = 'PAYOUT'
         and (cast($2 as text) is null or status = $2)
         and (cast($3 as text) is null or provider_code = $3)
         and (cast($4 as text) is null or created_at >= $4)
         and (cast($5 as text) is null or created_at < $5)
         and (cast($6 as text) is null or (created_at, reference) < ($6, $7))
       order by created_at desc, reference desc
       limit $8`,
      [
        merchantId,
        status ?? null,
        providerCode ?? null,
        from ?? null,
        to ?? null,
        after?.createdAt ?? null,
        after?.payoutReference ?? null,
        limit + 1,
      ],
    );
    const payouts = rows.slice(0, limit).map((row) => toPayoutRecord(this.stateOf(row)));
    const last = payouts[payouts.length - 1];
    return rows.length > limit && last
      ? { payouts, next: { createdAt: last.created_at, payoutReference: last.payout_reference } }
      : { payouts };
  }

  /** The refunds and payouts flagged for operators (needs_attention), oldest first; one merchant's when given. */
  async needingAttention(limit: number, merchantId?: string): Promise<MoneyOutAttentionItem[]> {
    const rows = await this.sql.query<{ state: unknown }>(
      `select state from money_out_view where needs_attention = 1 and (cast($2 as text) is null or merchant_id = $2)
       order by created_at, stream_id limit $1`,
      [limit, merchantId ?? null],
    );
    return rows.map((row) => toAttentionItem(this.stateOf(row)));
  }

  /** The merchant's payouts waiting for an owner's approval, oldest first, with who asked for each. */
  async payoutApprovals({ merchantId, limit }: ListPayoutApprovalsQuery): Promise<PayoutApproval[]> {
    const rows = await this.sql.query<{ state: unknown }>(
      `select state from money_out_view where merchant_id = $1 and kind = 'PAYOUT' and status = 'PENDING_APPROVAL'
       order by created_at, reference limit $2`,
      [merchantId, limit],
    );
    return rows.map((row) => {
      const state = this.stateOf(row);
      return { payout: toPayoutRecord(state), createdBy: state.approval?.createdBy ?? null };
    });
  }

  /** Per kind, the oldest PENDING money-out's creation instant (null: none) and how many are flagged for attention. */
  async pendingByKind(): Promise<{ kind: string; oldestPendingSince: string | null; needsAttention: number }[]> {
    const rows = await this.sql.query<{ kind: string; oldest: string | null; flagged: string | number }>(
      `select k.kind,
         (select min(created_at) from money_out_view v where v.kind = k.kind and v.status = 'PENDING') as oldest,
         (select count(*) from money_out_view v where v.kind = k.kind and v.needs_attention = 1) as flagged
       from (select 'REFUND' as kind union all select 'PAYOUT') k`,
    );
    return rows.map((row) => ({ kind: row.kind, oldestPendingSince: row.oldest, needsAttention: Number(row.flagged) }));
  }

  private stateOf(row: { state: unknown }): MoneyOut {
    return fromJson(this.sql, row.state);
  }

  /** What the COMPLETED refunds of a collection returned, integer minor units. */
  async refundedAmount(merchantId: string, internalReference: string): Promise<number> {
    const [row] = await this.sql.query<{ total: string | number | null }>(
      `select sum(amount) as total from money_out_view
       where internal_reference = $1 and merchant_id = $2 and kind = 'REFUND' and status = 'COMPLETED'`,
      [internalReference, merchantId],
    );
    return Number(row?.total ?? 0);
  }
}
