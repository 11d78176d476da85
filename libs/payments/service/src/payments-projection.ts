import {
  SERVICE_PAYMENT_STREAM_PREFIX,
  WALLET_STREAM_PREFIX,
  type ServicePaymentSummary,
  type WalletBalance,
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
import { migrate, type SqlDatabase } from '@paygate/sql';
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

/** `wallet_balances`: one row per merchant wallet and currency (one wallet stream each). */
const WALLET_BALANCES: StreamReadModel<WalletEvent, Balance> = {
  streamPrefix: WALLET_STREAM_PREFIX,
  read: walletLedgerDecider.read,
  evolve: evolveBalance,
  table: 'wallet_balances',
  key: (_, event) => ({ merchant_id: event.data.merchantId, currency: event.data.currency }),
  columns: { balance: 'bigint', available: 'bigint' },
  toColumns: (row) => row,
  fromColumns: (values) => ({ balance: Number(values.balance), available: Number(values.available) }),
};

/**
 * `service_payment_view`: one row per service payment, with the summary the contract answers; the payment timers go
 * with it.
 */
function servicePaymentView(statusPollMs: number): StreamReadModel<ServicePaymentEvent, ServicePayment> {
  return {
    streamPrefix: SERVICE_PAYMENT_STREAM_PREFIX,
    read: servicePaymentDecider.read,
    evolve: servicePaymentDecider.evolve,
    table: 'service_payment_view',
    key: (internalReference) => ({ internal_reference: internalReference }),
    columns: { merchant_id: 'text', summary: 'jsonb', state: 'jsonb' },
    toColumns: (payment) => ({
      merchant_id: payment.opened.merchantId,
      summary: toServicePaymentSummary(payment),
      state: payment,
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

  async findServicePayment(merchantId: string, internalReference: string): Promise<ServicePaymentSummary | null> {
    const [row] = await this.sql.query<{ summary: ServicePaymentSummary }>(
      'select summary from service_payment_view where internal_reference = $1 and merchant_id = $2',
      [internalReference, merchantId],
    );
    return row?.summary ?? null;
  }
}
