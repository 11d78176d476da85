import { Inject, Injectable } from '@nestjs/common';
import { INFRASTRUCTURE, type Infrastructure } from '@paygate/platform';

export type MomoStatus = 'PENDING' | 'SUCCESSFUL' | 'FAILED';

export interface RequestToPay {
  referenceId: string;
  amount: string;
  currency: string;
  externalId: string;
  payer: { partyIdType: string; partyId: string };
  payerMessage: string;
  payeeNote: string;
  callbackUrl?: string;
  /** When the outcome becomes known; undefined when the customer never answers. */
  resolvesAt?: Date;
}

export interface StoredRequestToPay extends RequestToPay {
  status: MomoStatus;
  reason?: string;
  financialTransactionId?: string;
}

interface Row {
  reference_id: string;
  amount: string;
  currency: string;
  external_id: string;
  party_id_type: string;
  party_id: string;
  payer_message: string;
  payee_note: string;
  callback_url: string | null;
  status: MomoStatus;
  reason: string | null;
  financial_transaction_id: string | null;
  resolves_at: Date | string | null;
}

function fromRow(row: Row): StoredRequestToPay {
  return {
    referenceId: row.reference_id,
    amount: row.amount,
    currency: row.currency,
    externalId: row.external_id,
    payer: { partyIdType: row.party_id_type, partyId: row.party_id },
    payerMessage: row.payer_message,
    payeeNote: row.payee_note,
    callbackUrl: row.callback_url ?? undefined,
    resolvesAt: row.resolves_at === null ? undefined : new Date(row.resolves_at),
    status: row.status,
    reason: row.reason ?? undefined,
    financialTransactionId: row.financial_transaction_id ?? undefined,
  };
}

@Injectable()
export class MomoStore {
  /**
   * Tokens known valid, by product and hash, with their expiry (ms): a token is checked on every call of the
   * client that holds it, and it only ever ends by expiring, so one look per token and process
   * is enough. Another process's tokens are looked up once.
   */
  private readonly validTokens = new Map<string, number>();

  constructor(@Inject(INFRASTRUCTURE) private readonly infrastructure: Infrastructure) {}

  async saveToken(tokenHash: string, product: string, expiresAt: Date): Promise<void> {
    const { sql } = this.infrastructure;
    const now = Date.now();
    await sql.query('delete from sandbox_momo_tokens where expires_at < $1', [new Date(now).toISOString()]);
    await sql.query('insert into sandbox_momo_tokens (token_hash, product, expires_at) values ($1, $2, $3)', [
      tokenHash,
      product,
      expiresAt.toISOString(),
    ]);
    for (const [key, expiry] of this.validTokens) if (expiry <= now) this.validTokens.delete(key);
    this.validTokens.set(`${product}:${tokenHash}`, expiresAt.getTime());
  }

  /** Valid for the product that issued it only. */
  async tokenValid(tokenHash: string, product: string): Promise<boolean> {
    const now = Date.now();
    const known = this.validTokens.get(`${product}:${tokenHash}`);
    if (known !== undefined) return known > now;
    const [row] = await this.infrastructure.sql.query<{ expires_at: Date | string }>(
      'select expires_at from sandbox_momo_tokens where token_hash = $1 and product = $2 and expires_at > $3',
      [tokenHash, product, new Date(now).toISOString()],
    );
    if (row) this.validTokens.set(`${product}:${tokenHash}`, new Date(row.expires_at).getTime());
    return row !== undefined;
  }

  /** False when the reference id is already taken. */
  async insert(request: RequestToPay): Promise<boolean> {
    const rows = await this.infrastructure.sql.query(
      `insert into sandbox_momo_requests
         (reference_id, amount, currency, external_id, party_id_type, party_id, payer_message, payee_note, callback_url, resolves_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       on conflict (reference_id) do nothing
       returning reference_id`,
      [
        request.referenceId,
        request.amount,
        request.currency,
        request.externalId,
        request.payer.partyIdType,
        request.payer.partyId,
        request.payerMessage,
        request.payeeNote,
        request.callbackUrl ?? null,
        request.resolvesAt?.toISOString() ?? null,
      ],
    );
    return rows.length > 0;
  }

  async find(referenceId: string): Promise<StoredRequestToPay | undefined> {
    const [row] = await this.infrastructure.sql.query<Row>(
      'select * from sandbox_momo_requests where reference_id = $1',
      [referenceId],
    );
    return row && fromRow(row);
  }

  /** Records the outcome unless one is already recorded; answers the request as it now stands. */
  async settle(
    referenceId: string,
    outcome: { status: MomoStatus; reason?: string; financialTransactionId?: string },
  ): Promise<StoredRequestToPay | undefined> {
    await this.infrastructure.sql.query(
      `update sandbox_momo_requests set status = $2, reason = $3, financial_transaction_id = $4
       where reference_id = $1 and status = 'PENDING'`,
      [referenceId, outcome.status, outcome.reason ?? null, outcome.financialTransactionId ?? null],
    );
    return this.find(referenceId);
  }
}
