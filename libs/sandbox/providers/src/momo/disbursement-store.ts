import { Inject, Injectable } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { lockInTransaction, type SqlClient } from '@paygate/sql';
import { hundredths } from '../validation';

export type MoneyOutStatus = 'PENDING' | 'SUCCESSFUL' | 'FAILED' | 'REVERSED';

export interface MoneyOutOutcome {
  status: MoneyOutStatus;
  reason?: string;
  financialTransactionId?: string;
}

interface Common {
  referenceId: string;
  amount: string;
  currency: string;
  externalId: string;
  payerMessage: string;
  payeeNote: string;
  callbackUrl?: string;
  /** When the outcome becomes known. */
  resolvesAt: Date;
}

/** A Disbursement transfer: a payout to the payee. */
export interface Transfer extends Common {
  payee: { partyIdType: string; partyId: string };
  /** When a completed transfer is taken back (test numbers ending 0006). */
  reversesAt?: Date;
}

/** A Disbursement refund of (part of) a collection's request to pay. */
export interface Refund extends Common {
  referenceIdToRefund: string;
}

interface Recorded {
  status: MoneyOutStatus;
  reason?: string;
  financialTransactionId?: string;
  /** Requests that named this reference id: 1 when it was sent once. */
  requestsReceived: number;
}

export type StoredTransfer = Transfer & Recorded;
export type StoredRefund = Refund & Recorded;

interface Row {
  reference_id: string;
  amount: string;
  currency: string;
  external_id: string;
  payer_message: string;
  payee_note: string;
  callback_url: string | null;
  status: MoneyOutStatus;
  reason: string | null;
  financial_transaction_id: string | null;
  resolves_at: Date | string;
  requests_received: number;
}

interface TransferRow extends Row {
  party_id_type: string;
  party_id: string;
  reverses_at: Date | string | null;
}

interface RefundRow extends Row {
  reference_id_to_refund: string;
}

function common(row: Row): Common & Recorded {
  return {
    referenceId: row.reference_id,
    amount: row.amount,
    currency: row.currency,
    externalId: row.external_id,
    payerMessage: row.payer_message,
    payeeNote: row.payee_note,
    callbackUrl: row.callback_url ?? undefined,
    resolvesAt: new Date(row.resolves_at),
    status: row.status,
    reason: row.reason ?? undefined,
    financialTransactionId: row.financial_transaction_id ?? undefined,
    requestsReceived: Number(row.requests_received),
  };
}

const transferFromRow = (row: TransferRow): StoredTransfer => ({
  ...common(row),
  payee: { partyIdType: row.party_id_type, partyId: row.party_id },
  reversesAt: row.reverses_at === null ? undefined : new Date(row.reverses_at),
});

const refundFromRow = (row: RefundRow): StoredRefund => ({
  ...common(row),
  referenceIdToRefund: row.reference_id_to_refund,
});

/** What a refund is checked against: the collection refunded, and what earlier refunds (not failed) took of it. */
export interface RefundedCollection {
  amount: string;
  currency: string;
  status: string;
  payerPartyId: string;
  refundedHundredths: number;
}

/** The Disbursement product's transfers and refunds (sandbox_momo_transfers, sandbox_momo_refunds). */
@Injectable()
export class DisbursementStore {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  /** Records a transfer, or counts one more request for its reference id; `created` when it is new. */
  async recordTransfer(transfer: Transfer): Promise<{ created: boolean; transfer: StoredTransfer }> {
    const [row] = await this.infrastructure.sql.query<TransferRow>(
      `insert into sandbox_momo_transfers
         (reference_id, amount, currency, external_id, party_id_type, party_id, payer_message, payee_note,
          callback_url, resolves_at, reverses_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       on conflict (reference_id) do update set requests_received = sandbox_momo_transfers.requests_received + 1
       returning *`,
      [
        transfer.referenceId,
        transfer.amount,
        transfer.currency,
        transfer.externalId,
        transfer.payee.partyIdType,
        transfer.payee.partyId,
        transfer.payerMessage,
        transfer.payeeNote,
        transfer.callbackUrl ?? null,
        transfer.resolvesAt.toISOString(),
        transfer.reversesAt?.toISOString() ?? null,
      ],
    );
    const stored = transferFromRow(row);
    return { created: stored.requestsReceived === 1, transfer: stored };
  }

  /**
   * Counts one more request for a refund's reference id when it exists (`created: false`); otherwise, under a lock on
   * the collection refunded, `decide` refuses it (by throwing) or answers when its outcome is known, from the
   * collection and what was refunded of it (undefined when no request to pay has the id), and it is recorded.
   */
  async recordRefund(
    refund: Omit<Refund, 'resolvesAt'>,
    decide: (collection: RefundedCollection | undefined) => Date,
  ): Promise<{ created: boolean; refund: StoredRefund }> {
    return this.infrastructure.sql.transaction(async (tx) => {
      await lockInTransaction(tx, `sandbox-momo-refund:${refund.referenceIdToRefund}`);
      const [repeated] = await tx.query<RefundRow>(
        `update sandbox_momo_refunds set requests_received = requests_received + 1 where reference_id = $1 returning *`,
        [refund.referenceId],
      );
      if (repeated) return { created: false, refund: refundFromRow(repeated) };
      const resolvesAt = decide(await refundedCollection(tx, refund.referenceIdToRefund));
      const [row] = await tx.query<RefundRow>(
        `insert into sandbox_momo_refunds
           (reference_id, reference_id_to_refund, amount, currency, external_id, payer_message, payee_note,
            callback_url, resolves_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (reference_id) do update set requests_received = sandbox_momo_refunds.requests_received + 1
         returning *`,
        [
          refund.referenceId,
          refund.referenceIdToRefund,
          refund.amount,
          refund.currency,
          refund.externalId,
          refund.payerMessage,
          refund.payeeNote,
          refund.callbackUrl ?? null,
          resolvesAt.toISOString(),
        ],
      );
      const stored = refundFromRow(row);
      return { created: stored.requestsReceived === 1, refund: stored };
    });
  }

  async findTransfer(referenceId: string): Promise<StoredTransfer | undefined> {
    const [row] = await this.infrastructure.sql.query<TransferRow>(
      'select * from sandbox_momo_transfers where reference_id = $1',
      [referenceId],
    );
    return row && transferFromRow(row);
  }

  async findRefund(referenceId: string): Promise<StoredRefund | undefined> {
    const [row] = await this.infrastructure.sql.query<RefundRow>(
      'select * from sandbox_momo_refunds where reference_id = $1',
      [referenceId],
    );
    return row && refundFromRow(row);
  }

  /** Every transfer, or refund, our reference (the externalId) named, oldest first. */
  async byExternalId(kind: 'transfer', externalId: string): Promise<StoredTransfer[]>;
  async byExternalId(kind: 'refund', externalId: string): Promise<StoredRefund[]>;
  async byExternalId(kind: 'transfer' | 'refund', externalId: string): Promise<Array<StoredTransfer | StoredRefund>> {
    const rows = await this.infrastructure.sql.query<TransferRow & RefundRow>(
      `select * from ${TABLES[kind]} where external_id = $1 order by created_at, reference_id`,
      [externalId],
    );
    return rows.map((row) => (kind === 'transfer' ? transferFromRow(row) : refundFromRow(row)));
  }

  /** Records the outcome of a PENDING transfer or refund; the record as it now stands. */
  async settle(kind: 'transfer', referenceId: string, outcome: MoneyOutOutcome): Promise<StoredTransfer | undefined>;
  async settle(kind: 'refund', referenceId: string, outcome: MoneyOutOutcome): Promise<StoredRefund | undefined>;
  async settle(
    kind: 'transfer' | 'refund',
    referenceId: string,
    outcome: MoneyOutOutcome,
  ): Promise<StoredTransfer | StoredRefund | undefined> {
    await this.infrastructure.sql.query(
      `update ${TABLES[kind]} set status = $2, reason = $3, financial_transaction_id = $4
       where reference_id = $1 and status = 'PENDING'`,
      [referenceId, outcome.status, outcome.reason ?? null, outcome.financialTransactionId ?? null],
    );
    return kind === 'transfer' ? this.findTransfer(referenceId) : this.findRefund(referenceId);
  }

  /** Takes back a SUCCESSFUL transfer; the transfer as it now stands. */
  async reverse(referenceId: string, reason: string): Promise<StoredTransfer | undefined> {
    await this.infrastructure.sql.query(
      `update sandbox_momo_transfers set status = 'REVERSED', reason = $2 where reference_id = $1 and status = 'SUCCESSFUL'`,
      [referenceId, reason],
    );
    return this.findTransfer(referenceId);
  }
}

const TABLES = { transfer: 'sandbox_momo_transfers', refund: 'sandbox_momo_refunds' } as const;

async function refundedCollection(tx: SqlClient, referenceId: string): Promise<RefundedCollection | undefined> {
  const [collection] = await tx.query<{ amount: string; currency: string; status: string; party_id: string }>(
    'select amount, currency, status, party_id from sandbox_momo_requests where reference_id = $1',
    [referenceId],
  );
  if (!collection) return undefined;
  const refunds = await tx.query<{ amount: string }>(
    `select amount from sandbox_momo_refunds where reference_id_to_refund = $1 and status <> 'FAILED'`,
    [referenceId],
  );
  return {
    amount: collection.amount,
    currency: collection.currency,
    status: collection.status,
    payerPartyId: collection.party_id,
    refundedHundredths: refunds.reduce((sum, { amount }) => sum + hundredths(amount), 0),
  };
}
