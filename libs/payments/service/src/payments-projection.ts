import { fold } from '@paygate/decider';
import {
  LEDGER_ACCOUNTS,
  SERVICE_PAYMENT_EVENT_TYPES as EVENTS,
  SERVICE_PAYMENT_STREAM_PREFIX,
  WALLET_EVENT_TYPES,
  WALLET_STREAM_PREFIX,
  type ServicePaymentEvent,
  type ServicePaymentSummary,
  type WalletBalance,
  type WalletEvent,
} from '@paygate/contracts';
import type { EventStore, RecordedEvent } from '@paygate/event-store';
import { servicePaymentDecider, transfersOf, walletLedgerDecider, type ServicePayment } from '@paygate/payments-domain';
import { migrate, type SqlClient, type SqlDatabase } from '@paygate/sql';
import { LeasedTimers } from '@paygate/timers';
import { PAYMENTS_MIGRATIONS } from './migrations';

/** `validation`: ask the biller about the PRN again; `payment`: pay the PRN (again) with the payment's idempotency key. */
export type PaymentTimerKind = 'validation' | 'payment';

/**
 * Scheduled with ServicePaymentRequested (a safety net: a payer that dies mid-call is replaced),
 * PaymentAttemptFailed (the retry at nextAttemptAt) and PrnValidationDeferred; the validation one
 * goes with PrnConfirmed, all with the payment's final event. The deterministic idempotency key
 * makes a second fire the same payment.
 */
export const PAYMENT_TIMERS = new LeasedTimers<PaymentTimerKind>('payment_timers');

/** How a service payment shows on its collection's record (payments.findServicePayment). */
export function toServicePaymentSummary(payment: ServicePayment): ServicePaymentSummary {
  const { prn, serviceName, requestAmount, currency } = payment.opened;
  return { prn, status: payment.status, statusMessage: payment.statusMessage, serviceName, amount: requestAmount, currency, billerPaymentId: payment.billerPaymentId ?? null };
}

const schemaVersionOf = (recorded: { metadata: Record<string, unknown> }) => Number(recorded.metadata.schemaVersion ?? 1);

/**
 * The service-payments read models, projected from its own streams: `wallet_balances` (one row
 * per merchant wallet and currency) and `service_payment_view` (one row per service payment,
 * with the summary the contract answers), and the durable payment timers. Each event is applied
 * in one transaction with its stream revision, so redelivery (at least once) changes nothing.
 */
export class PaymentsProjection {
  static readonly STREAM_PREFIXES = [SERVICE_PAYMENT_STREAM_PREFIX, WALLET_STREAM_PREFIX];

  private constructor(
    private readonly sql: SqlDatabase,
    private readonly store: EventStore,
    private readonly statusPollMs: number,
  ) {}

  static async open(sql: SqlDatabase, store: EventStore, statusPollMs: number): Promise<PaymentsProjection> {
    await migrate(sql, PAYMENTS_MIGRATIONS);
    return new PaymentsProjection(sql, store, statusPollMs);
  }

  async apply(recorded: RecordedEvent): Promise<void> {
    const stored = { type: recorded.type, data: recorded.data, schemaVersion: schemaVersionOf(recorded) };
    if (recorded.streamName.startsWith(WALLET_STREAM_PREFIX)) {
      const event = walletLedgerDecider.read(stored);
      if (event) await this.applyWallet(event, recorded.revision);
      return;
    }
    // The stream also holds the events published for other contexts: they change no state.
    const event = servicePaymentDecider.read(stored);
    if (event) await this.applyServicePayment(recorded, event);
  }

  /**
   * Balances move by what each event changes: a transfer to or from the wallet moves balance and
   * available, a hold placed or released moves available only, a capture moves balance (the held
   * amount leaves the wallet and the hold, so available stays). Applied only past the row's revision.
   */
  private async applyWallet(event: WalletEvent, revision: number): Promise<void> {
    const { merchantId, currency } = event.data;
    const account = LEDGER_ACCOUNTS.merchantWallet(merchantId, currency);
    let posted = 0;
    for (const transfer of transfersOf(event)) {
      if (transfer.creditAccount === account) posted += transfer.amount;
      if (transfer.debitAccount === account) posted -= transfer.amount;
    }
    let available = posted;
    if (event.type === WALLET_EVENT_TYPES.holdPlaced) available -= event.data.amount;
    if (event.type === WALLET_EVENT_TYPES.holdReleased) available += event.data.amount;
    if (event.type === WALLET_EVENT_TYPES.holdCaptured) available += event.data.transfer.amount;
    await this.sql.query(
      `insert into wallet_balances (merchant_id, currency, balance, available, revision) values ($1, $2, $3, $4, $5)
       on conflict (merchant_id, currency) do update
         set balance = wallet_balances.balance + excluded.balance, available = wallet_balances.available + excluded.available, revision = excluded.revision
         where wallet_balances.revision < excluded.revision`,
      [merchantId, currency, posted, available, revision],
    );
  }

  private async applyServicePayment(recorded: RecordedEvent, event: ServicePaymentEvent): Promise<void> {
    const internalReference = recorded.streamName.slice(SERVICE_PAYMENT_STREAM_PREFIX.length);
    // Without a row (only a projection that started late: every stream begins with Opened), the
    // stream itself is read, before the transaction: PGlite's one connection is the transaction's.
    const known = event.type === EVENTS.opened || (await this.sql.query('select 1 from service_payment_view where internal_reference = $1', [internalReference])).length > 0;
    const folded = known ? undefined : await this.foldStream(recorded);
    await this.sql.transaction(async (tx) => {
      const [row] = await tx.query<{ revision: number; state: ServicePayment }>('select revision, state from service_payment_view where internal_reference = $1 for update', [
        internalReference,
      ]);
      if (row && recorded.revision <= row.revision) return;
      // Each stream arrives in order, at least once: anything past the row's revision is next
      // (published events in between are skipped).
      const state = row ? servicePaymentDecider.evolve(row.state, event) : (folded ?? servicePaymentDecider.evolve(null, event));
      if (!state) return;
      await tx.query(
        `insert into service_payment_view (internal_reference, merchant_id, summary, state, revision) values ($1, $2, $3::jsonb, $4::jsonb, $5)
         on conflict (internal_reference) do update set summary = excluded.summary, state = excluded.state, revision = excluded.revision`,
        [internalReference, state.opened.merchantId, JSON.stringify(toServicePaymentSummary(state)), JSON.stringify(state), recorded.revision],
      );
      await this.scheduleTimers(tx, internalReference, event);
    });
  }

  private async foldStream(recorded: RecordedEvent): Promise<ServicePayment | null> {
    const events = await this.store.readStream(recorded.streamName, { maxCount: recorded.revision + 1 });
    return fold(servicePaymentDecider, events.flatMap((stored) => servicePaymentDecider.read({ type: stored.type, data: stored.data, schemaVersion: schemaVersionOf(stored) }) ?? []));
  }

  private async scheduleTimers(tx: SqlClient, internalReference: string, event: ServicePaymentEvent): Promise<void> {
    switch (event.type) {
      case EVENTS.paymentRequested:
        // The payer pays at once; this fires only if it died or the biller still processes it.
        await PAYMENT_TIMERS.schedule(tx, internalReference, 'payment', new Date(Date.parse(event.data.requestedAt) + this.statusPollMs));
        break;
      case EVENTS.attemptFailed:
        await PAYMENT_TIMERS.schedule(tx, internalReference, 'payment', new Date(event.data.nextAttemptAt));
        break;
      case EVENTS.prnValidationDeferred:
        await PAYMENT_TIMERS.schedule(tx, internalReference, 'validation', new Date(event.data.nextAttemptAt));
        break;
      case EVENTS.prnConfirmed:
        await PAYMENT_TIMERS.cancel(tx, internalReference, ['validation']);
        break;
      case EVENTS.completed:
      case EVENTS.failed:
      case EVENTS.prnRejected:
        await PAYMENT_TIMERS.cancel(tx, internalReference);
        break;
    }
  }

  async walletBalances(merchantId: string): Promise<WalletBalance[]> {
    const rows = await this.sql.query<{ currency: string; balance: string | number; available: string | number }>(
      'select currency, balance, available from wallet_balances where merchant_id = $1 order by currency',
      [merchantId],
    );
    return rows.map((row) => ({ currency: row.currency, balance: Number(row.balance), available: Number(row.available) }));
  }

  async findServicePayment(merchantId: string, internalReference: string): Promise<ServicePaymentSummary | null> {
    const [row] = await this.sql.query<{ summary: ServicePaymentSummary }>('select summary from service_payment_view where internal_reference = $1 and merchant_id = $2', [
      internalReference,
      merchantId,
    ]);
    return row?.summary ?? null;
  }
}
