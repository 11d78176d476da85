import { randomBytes, randomInt } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';
import { forUpdate, lockInTransaction } from '@paygate/sql';

/** A PRN every fresh sandbox has, for demos and first tests. */
export const SEEDED_PRN = '2250000001301';

export type PrnStatus = 'AVAILABLE' | 'SUBMITTED' | 'PAID' | 'EXPIRED';
export const PRN_STATUSES: readonly PrnStatus[] = ['AVAILABLE', 'SUBMITTED', 'PAID', 'EXPIRED'];

export interface NewPrn {
  /** Generated (13 random digits) when absent. */
  prn?: string;
  amount: number;
  currency: string;
  status: PrnStatus;
  serviceName: string;
  payerName: string;
  expiresAt: Date;
}

export interface Prn extends Required<NewPrn> {
  paymentCalls: number;
}

export interface NewPayment {
  idempotencyKey: string;
  prn: string;
  amount: number;
  currency: string;
  reference: string;
}

export interface Payment extends NewPayment {
  paymentId: string;
  /** PENDING until `completesAt` (the injected delay), then COMPLETED. */
  status: 'PENDING' | 'COMPLETED';
  receiptNumber: string;
  completesAt: Date;
}

export interface Faults {
  failNext: number;
  delayMs: number;
  failLookupsNext: number;
}

interface PrnRow {
  prn: string;
  amount: number | string | bigint;
  currency: string;
  status: PrnStatus;
  service_name: string;
  payer_name: string;
  expires_at: Date | string;
  payment_calls: number;
}

interface PaymentRow {
  idempotency_key: string;
  payment_id: string;
  prn: string;
  amount: number | string | bigint;
  currency: string;
  reference: string;
  status: 'PENDING' | 'COMPLETED';
  receipt_number: string;
  completes_at: Date | string;
}

/** An AVAILABLE PRN past its expiry is EXPIRED: the clock decides, no timer needed. */
function prnFromRow(row: PrnRow): Prn {
  const expiresAt = new Date(row.expires_at);
  const status = row.status === 'AVAILABLE' && expiresAt.getTime() <= Date.now() ? 'EXPIRED' : row.status;
  return {
    prn: row.prn,
    amount: Number(row.amount),
    currency: row.currency,
    status,
    serviceName: row.service_name,
    payerName: row.payer_name,
    expiresAt,
    paymentCalls: row.payment_calls,
  };
}

function paymentFromRow(row: PaymentRow): Payment {
  return {
    idempotencyKey: row.idempotency_key,
    paymentId: row.payment_id,
    prn: row.prn,
    amount: Number(row.amount),
    currency: row.currency,
    reference: row.reference,
    status: row.status,
    receiptNumber: row.receipt_number,
    completesAt: new Date(row.completes_at),
  };
}

const randomDigits = (count: number) => Array.from({ length: count }, () => randomInt(10)).join('');

@Injectable()
export class BillerStore {
  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  /** The created PRN, or undefined when the number is taken. A generated number is retried on a collision. */
  async createPrn(prn: NewPrn): Promise<Prn | undefined> {
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const [row] = await this.infrastructure.sql.query<PrnRow>(
        `insert into sandbox_biller_prns (prn, amount, currency, status, service_name, payer_name, expires_at)
         values ($1, $2, $3, $4, $5, $6, $7) on conflict (prn) do nothing returning *`,
        [
          prn.prn ?? randomDigits(13),
          prn.amount,
          prn.currency,
          prn.status,
          prn.serviceName,
          prn.payerName,
          prn.expiresAt.toISOString(),
        ],
      );
      if (row || prn.prn !== undefined) return row && prnFromRow(row);
    }
    throw new Error('no free PRN found in 5 attempts');
  }

  async findPrn(prn: string): Promise<Prn | undefined> {
    await this.completeDue();
    const [row] = await this.infrastructure.sql.query<PrnRow>('select * from sandbox_biller_prns where prn = $1', [
      prn,
    ]);
    return row && prnFromRow(row);
  }

  /** False when the PRN does not exist (nothing to count against). */
  async countPaymentCall(prn: string): Promise<boolean> {
    const rows = await this.infrastructure.sql.query(
      'update sandbox_biller_prns set payment_calls = payment_calls + 1 where prn = $1 returning prn',
      [prn],
    );
    return rows.length > 0;
  }

  async findPayment(idempotencyKey: string): Promise<Payment | undefined> {
    await this.completeDue();
    const [row] = await this.infrastructure.sql.query<PaymentRow>(
      'select * from sandbox_biller_payments where idempotency_key = $1',
      [idempotencyKey],
    );
    return row && paymentFromRow(row);
  }

  async paymentsFor(prn: string): Promise<Payment[]> {
    await this.completeDue();
    const rows = await this.infrastructure.sql.query<PaymentRow>(
      'select * from sandbox_biller_payments where prn = $1 order by created_at, payment_id',
      [prn],
    );
    return rows.map(paymentFromRow);
  }

  /**
   * One transaction, serialised per key and per PRN: `decide` sees the key's payment (if any)
   * and the PRN as they stand, and either answers from them or asks for a new payment, which is
   * recorded with the PRN turned SUBMITTED. Refusals thrown by `decide` leave nothing behind.
   */
  async pay(
    idempotencyKey: string,
    prn: string,
    decide: (existing: Payment | undefined, prn: Prn | undefined) => NewPayment | Payment,
    completesAt: Date,
  ): Promise<{ payment: Payment; replayed: boolean }> {
    await this.completeDue();
    return this.infrastructure.sql.transaction(async (tx) => {
      await lockInTransaction(tx, `sandbox-biller-key:${idempotencyKey}`);
      const [existingRow] = await tx.query<PaymentRow>(
        'select * from sandbox_biller_payments where idempotency_key = $1',
        [idempotencyKey],
      );
      const [prnRow] = await tx.query<PrnRow>(`select * from sandbox_biller_prns where prn = $1${forUpdate(tx)}`, [
        prn,
      ]);
      const decided = decide(existingRow && paymentFromRow(existingRow), prnRow && prnFromRow(prnRow));
      if ('paymentId' in decided) return { payment: decided, replayed: true };
      const [row] = await tx.query<PaymentRow>(
        `insert into sandbox_biller_payments (idempotency_key, payment_id, prn, amount, currency, reference, receipt_number, completes_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8) returning *`,
        [
          decided.idempotencyKey,
          `pay_${randomBytes(12).toString('hex')}`,
          decided.prn,
          decided.amount,
          decided.currency,
          decided.reference,
          `RCT${randomDigits(12)}`,
          completesAt.toISOString(),
        ],
      );
      await tx.query(`update sandbox_biller_prns set status = 'SUBMITTED' where prn = $1`, [decided.prn]);
      return { payment: paymentFromRow(row), replayed: false };
    });
  }

  /**
   * Completes every payment whose processing time is over and marks its PRN PAID. Done on each
   * read rather than by a timer, so a payment in flight when the sandbox stopped still completes.
   */
  async completeDue(): Promise<void> {
    const now = new Date().toISOString();
    await this.infrastructure.sql.transaction(async (tx) => {
      await tx.query(
        `update sandbox_biller_prns set status = 'PAID'
         where prn in (select prn from sandbox_biller_payments where status = 'PENDING' and completes_at <= $1)`,
        [now],
      );
      await tx.query(
        `update sandbox_biller_payments set status = 'COMPLETED' where status = 'PENDING' and completes_at <= $1`,
        [now],
      );
    });
  }

  async faults(): Promise<Faults> {
    const [row] = await this.infrastructure.sql.query<{
      fail_next: number;
      delay_ms: number;
      fail_lookups_next: number;
    }>('select fail_next, delay_ms, fail_lookups_next from sandbox_biller_faults where id = 1');
    return { failNext: row.fail_next, delayMs: row.delay_ms, failLookupsNext: row.fail_lookups_next };
  }

  async setFaults(faults: Faults): Promise<Faults> {
    await this.infrastructure.sql.query(
      'update sandbox_biller_faults set fail_next = $1, delay_ms = $2, fail_lookups_next = $3 where id = 1',
      [faults.failNext, faults.delayMs, faults.failLookupsNext],
    );
    return this.faults();
  }

  /** True when this payment call is one of the injected failures (and uses it up). */
  async takeInjectedFailure(): Promise<boolean> {
    const rows = await this.infrastructure.sql.query(
      'update sandbox_biller_faults set fail_next = fail_next - 1 where id = 1 and fail_next > 0 returning id',
    );
    return rows.length > 0;
  }

  /** True when this PRN lookup is one of the injected failures (and uses it up). */
  async takeInjectedLookupFailure(): Promise<boolean> {
    const rows = await this.infrastructure.sql.query(
      'update sandbox_biller_faults set fail_lookups_next = fail_lookups_next - 1 where id = 1 and fail_lookups_next > 0 returning id',
    );
    return rows.length > 0;
  }
}
