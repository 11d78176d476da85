import {
  SERVICE_PAYMENT_STREAM_PREFIX,
  WALLET_STREAM_PREFIX,
  type ListServicePaymentsQuery,
  type ServicePaymentPage,
  type ServicePaymentSummary,
  type WalletBalance,
  type WalletEntry,
  type WalletEntryKind,
  type WalletStatementPage,
  type WalletStatementQuery,
} from '@paygate/contracts';
import {
  LEDGER_ACCOUNTS,
  WALLET_EVENT_TYPES,
  type ServicePaymentEvent,
  type WalletEvent,
  paymentTimerChanges,
  servicePaymentDecider,
  transfersOf,
  walletLedgerDecider,
  type PaymentTimerKind,
  type ServicePayment,
} from '@paygate/payments-domain';
import type { EventStore } from '@paygate/event-store';
import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { Projection, type StreamReadModel } from '@paygate/projections';
import { fromJson, migrate, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { LeasedTimers } from '@paygate/timers';
import { PAYMENTS_MIGRATIONS } from './migrations';

/**
 * The payment timers (the PRN lookup deferred, the biller's retries), on the job queue (queue `payment_timers`, the
 * table they had before); what schedules or cancels them is the process's paymentTimerChanges.
 */
export const PAYMENT_TIMERS = new LeasedTimers<PaymentTimerKind>('payment_timers', { validation: true, payment: true });

/** How a service payment shows on its collection's record (payments.findServicePayment). */
export function toServicePaymentSummary(payment: ServicePayment): ServicePaymentSummary {
  const { prn, serviceName, requestAmount, currency } = payment.opened;
  return {
    prn,
    status: payment.status,
    statusMessage: payment.statusMessage,
    serviceName,
    amount: requestAmount,
    currency,
    billerPaymentId: payment.billerPaymentId ?? null,
  };
}

type Balance = Omit<WalletBalance, 'currency'>;

interface EntryRow {
  entry_id: string;
  kind: WalletEntryKind;
  currency: string;
  balance_change: string | number;
  available_change: string | number;
  hold_id: string | null;
  purpose: string | null;
  internal_reference: string | null;
  transfers: unknown;
  at: string;
}

/** A statement line's columns, as `wallet_entries` holds them (transfers as JSON text). */
type EntryColumns = [
  merchantId: string,
  currency: string,
  revision: number,
  kind: string,
  balanceChange: number,
  availableChange: number,
  holdId: string | null,
  purpose: string | null,
  internalReference: string | null,
  transfers: string,
  at: string,
];

/**
 * Writes statement lines, one statement for any number, each line once: PostgreSQL takes an array per column,
 * SQLite one JSON array of lines.
 */
const INSERT_ENTRIES: Record<
  SqlClient['dialect'],
  (tx: SqlClient, lines: readonly EntryColumns[]) => Promise<unknown>
> = {
  postgres: (tx, lines) =>
    tx.query(
      `insert into wallet_entries (merchant_id, currency, revision, kind, balance_change, available_change,
           hold_id, purpose, internal_reference, transfers, at)
         select merchant_id, currency, revision, kind, balance_change, available_change, hold_id, purpose,
           internal_reference, transfers::jsonb, at
         from unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::bigint[], $6::bigint[], $7::text[],
           $8::text[], $9::text[], $10::text[], $11::text[])
           as e(merchant_id, currency, revision, kind, balance_change, available_change, hold_id, purpose,
             internal_reference, transfers, at)
         on conflict (merchant_id, currency, revision) do nothing`,
      Array.from({ length: 11 }, (_, column) => lines.map((line) => line[column])),
    ),
  // `where true` tells SQLite's parser that ON CONFLICT belongs to the INSERT, not to a join.
  sqlite: (tx, lines) =>
    tx.query(
      `insert into wallet_entries (merchant_id, currency, revision, kind, balance_change, available_change,
           hold_id, purpose, internal_reference, transfers, at)
         select ${Array.from({ length: 11 }, (_, column) => `value ->> ${column}`).join(', ')} from json_each($1) where true
         on conflict (merchant_id, currency, revision) do nothing`,
      [JSON.stringify(lines)],
    ),
};

/**
 * Balances move by what each event changes: a transfer to or from the wallet moves balance and
 * available, a hold placed or released moves available only, a capture moves balance (the held
 * amount leaves the wallet and the hold, so available stays).
 */
function evolveBalance(row: Balance | null, event: WalletEvent): Balance {
  const account = LEDGER_ACCOUNTS.merchantWallet(event.data.merchantId, event.data.currency);
  let posted = 0;
  for (const transfer of transfersOf(event)) {
    if (transfer.creditAccount === account) posted += transfer.amount;
    if (transfer.debitAccount === account) posted -= transfer.amount;
  }
  let available = posted;
  if (event.type === WALLET_EVENT_TYPES.holdPlaced) available -= event.data.amount;
  if (event.type === WALLET_EVENT_TYPES.holdReleased) available += event.data.amount;
  if (event.type === WALLET_EVENT_TYPES.holdCaptured) available += event.data.transfer.amount;
  return { balance: (row?.balance ?? 0) + posted, available: (row?.available ?? 0) + available };
}

/** A wallet event as a line of the wallet's statement. */
export function walletEntry(event: WalletEvent): WalletEntry {
  const change = evolveBalance(null, event);
  const line = {
    currency: event.data.currency,
    balanceChange: change.balance,
    availableChange: change.available,
    holdId: null,
    purpose: null,
    internalReference: null,
    transfers: transfersOf(event).map(({ transferId, debitAccount, creditAccount, amount }) => ({
      transferId,
      debitAccount,
      creditAccount,
      amount,
    })),
  };
  switch (event.type) {
    case WALLET_EVENT_TYPES.collectionCredited:
      return {
        ...line,
        kind: 'collection_credit',
        internalReference: event.data.internalReference,
        at: event.data.creditedAt,
      };
    case WALLET_EVENT_TYPES.toppedUp:
      return { ...line, kind: 'top_up', at: event.data.toppedUpAt };
    case WALLET_EVENT_TYPES.holdPlaced:
      return {
        ...line,
        kind: 'hold',
        holdId: event.data.holdId,
        purpose: event.data.purpose,
        internalReference: event.data.internalReference ?? null,
        at: event.data.placedAt,
      };
    case WALLET_EVENT_TYPES.holdReleased:
      return { ...line, kind: 'hold_release', holdId: event.data.holdId, at: event.data.releasedAt };
    case WALLET_EVENT_TYPES.holdCaptured:
      return { ...line, kind: 'hold_capture', holdId: event.data.holdId, at: event.data.capturedAt };
    case WALLET_EVENT_TYPES.moneyOutReversed:
      return { ...line, kind: 'money_out_reversal', at: event.data.reversedAt };
  }
}

/**
 * `wallet_balances`: one row per merchant wallet and currency (one wallet stream each); beside it,
 * `wallet_entries`, one row per wallet event (the statement), keyed by the event's revision so a
 * page applied again writes nothing twice.
 */
const WALLET_BALANCES: StreamReadModel<WalletEvent, Balance> = {
  streamPrefix: WALLET_STREAM_PREFIX,
  read: walletLedgerDecider.read,
  evolve: evolveBalance,
  table: 'wallet_balances',
  key: (_, event) => ({ merchant_id: event.data.merchantId, currency: event.data.currency }),
  columns: { balance: 'bigint', available: 'bigint' },
  toColumns: (row) => row,
  fromColumns: (values) => ({ balance: Number(values.balance), available: Number(values.available) }),
  async alongside(tx, changes) {
    await INSERT_ENTRIES[tx.dialect](
      tx,
      changes.map(({ event, revision }) => {
        const entry = walletEntry(event);
        return [
          event.data.merchantId,
          entry.currency,
          revision,
          entry.kind,
          entry.balanceChange,
          entry.availableChange,
          entry.holdId,
          entry.purpose,
          entry.internalReference,
          JSON.stringify(entry.transfers),
          entry.at,
        ];
      }),
    );
  },
};

/**
 * `service_payment_view`: one row per service payment, with the summary the contract answers and the instant it
 * opened (a merchant's list is newest first); the payment timers go with it.
 */
function servicePaymentView(statusPollMs: number): StreamReadModel<ServicePaymentEvent, ServicePayment> {
  return {
    streamPrefix: SERVICE_PAYMENT_STREAM_PREFIX,
    read: servicePaymentDecider.read,
    evolve: servicePaymentDecider.evolve,
    table: 'service_payment_view',
    key: (internalReference) => ({ internal_reference: internalReference }),
    columns: { merchant_id: 'text', summary: 'jsonb', state: 'jsonb', opened_at: 'timestamptz' },
    toColumns: (payment) => ({
      merchant_id: payment.opened.merchantId,
      summary: toServicePaymentSummary(payment),
      state: payment,
      opened_at: payment.opened.openedAt,
    }),
    fromColumns: (values) => values.state as ServicePayment,
    async alongside(tx, changes) {
      await PAYMENT_TIMERS.apply(
        tx,
        changes.map(({ streamId, event }) => ({
          internalReference: streamId,
          changes: paymentTimerChanges(event, statusPollMs),
        })),
      );
    },
  };
}

/**
 * The service-payments projection (wallet_balances, service_payment_view and the payment timers) and the reads the
 * contract makes of it.
 */
export class PaymentsProjection extends Projection {
  static async open(sql: SqlDatabase, store: EventStore, statusPollMs: number): Promise<PaymentsProjection> {
    // payments/0002 moves timers onto the job queue: the `jobs` table comes first.
    await migrate(sql, [...JOBS_MIGRATIONS, ...PAYMENTS_MIGRATIONS]);
    return new PaymentsProjection(
      'service-payments-projection',
      [servicePaymentView(statusPollMs), WALLET_BALANCES],
      sql,
      store,
    );
  }

  async walletBalances(merchantId: string): Promise<WalletBalance[]> {
    const rows = await this.sql.query<{ currency: string; balance: string | number; available: string | number }>(
      'select currency, balance, available from wallet_balances where merchant_id = $1 order by currency',
      [merchantId],
    );
    return rows.map((row) => ({
      currency: row.currency,
      balance: Number(row.balance),
      available: Number(row.available),
    }));
  }

  /**
   * A page of the statement newest first, keyset-paged on (at, entry_id): entries written later
   * never shift a page, and those a rebuild of the projection fills in take their place in time.
   */
  async walletStatement(query: WalletStatementQuery): Promise<WalletStatementPage> {
    const rows = await this.sql.query<EntryRow>(
      `select cast(entry_id as text) as entry_id, kind, currency, balance_change, available_change, hold_id, purpose,
         internal_reference, transfers, at
       from wallet_entries
       where merchant_id = $1 and (cast($2 as text) is null or currency = cast($2 as text))
         and (cast($3 as text) is null or (at, entry_id) < (cast($3 as text), cast($4 as bigint)))
       order by at desc, entry_id desc limit $5`,
      [
        query.merchantId,
        query.currency ?? null,
        query.after?.at ?? null,
        query.after?.entryId ?? null,
        query.limit + 1,
      ],
    );
    const entries = rows.slice(0, query.limit).map((row) => ({
      entryId: row.entry_id,
      kind: row.kind,
      currency: row.currency,
      balanceChange: Number(row.balance_change),
      availableChange: Number(row.available_change),
      holdId: row.hold_id,
      purpose: row.purpose,
      internalReference: row.internal_reference,
      transfers: fromJson<WalletEntry['transfers']>(this.sql, row.transfers),
      at: row.at,
    }));
    const last = entries.at(-1);
    return rows.length > query.limit && last ? { entries, next: { at: last.at, entryId: last.entryId } } : { entries };
  }

  /**
   * A page of the merchant's service payments newest first, keyset-paged on (opened_at, internal_reference): payments
   * opened later never shift a page. The instants answered are the ones the events hold, so a position handed back
   * compares exactly.
   */
  async listServicePayments(query: ListServicePaymentsQuery): Promise<ServicePaymentPage> {
    // Only the page after a position compares with one: PostgreSQL types $2 by opened_at, SQLite compares ISO text.
    const after = query.after
      ? {
          where: 'and (opened_at, internal_reference) < ($3, $4)',
          params: [query.after.openedAt, query.after.internalReference],
        }
      : { where: '', params: [] };
    const rows = await this.sql.query<{
      internal_reference: string;
      summary: unknown;
      opened_at: string;
      updated_at: string | null;
    }>(
      `select internal_reference, summary, state->'opened'->>'openedAt' as opened_at,
         state->>'updatedAt' as updated_at
       from service_payment_view
       where merchant_id = $1 ${after.where}
       order by opened_at desc, internal_reference desc limit $2`,
      [query.merchantId, query.limit + 1, ...after.params],
    );
    const payments = rows.slice(0, query.limit).map((row) => ({
      ...fromJson<ServicePaymentSummary>(this.sql, row.summary),
      internalReference: row.internal_reference,
      openedAt: row.opened_at,
      ...(row.updated_at !== null && { updatedAt: row.updated_at }),
    }));
    const last = payments.at(-1);
    return rows.length > query.limit && last
      ? { payments, next: { openedAt: last.openedAt, internalReference: last.internalReference } }
      : { payments };
  }

  async findServicePayment(merchantId: string, internalReference: string): Promise<ServicePaymentSummary | null> {
    const [row] = await this.sql.query<{ summary: unknown }>(
      'select summary from service_payment_view where internal_reference = $1 and merchant_id = $2',
      [internalReference, merchantId],
    );
    return row ? fromJson<ServicePaymentSummary>(this.sql, row.summary) : null;
  }
}
