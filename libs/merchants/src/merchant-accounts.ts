import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { DeploymentMode } from '@paygate/config';
import { forUpdate, migrate, type SqlDatabase } from '@paygate/sql';
import { MERCHANTS_MIGRATIONS } from './migrations';
import type { SecretBox } from './secret-box';

export type MerchantStatus = 'active' | 'suspended';

/** A merchant as the API sees it: no secret in here. */
export interface Merchant {
  id: string;
  name: string;
  status: MerchantStatus;
  publicKey: string;
  collectionCallbackUrl: string | null;
  servicePaymentsCallbackUrl: string | null;
  /** A payout above this many whole units of its currency waits for an owner's approval; null: none waits. */
  payoutApprovalThreshold: number | null;
  /** The most this merchant's payouts may total in a UTC day, whole units of their currency; null: no cap. */
  payoutDailyCap: number | null;
  /** Where payout.completed, payout.failed and payout.reversed go. */
  payoutsCallbackUrl: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface MerchantKeys {
  publicKey: string;
  secretKey: string;
  signingKey: string;
}

export type KeyKind = 'api' | 'signing';

interface MerchantRow {
  id: string;
  name: string;
  status: MerchantStatus;
  public_key: string;
  secret_key_hash: string;
  secret_key_sealed: string;
  signing_key_sealed: string;
  collection_callback_url: string | null;
  service_payments_callback_url: string | null;
  payout_approval_threshold: string | number | null;
  payout_daily_cap: string | number | null;
  payouts_callback_url: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

function randomAlphanumeric(length: number): string {
  // 62 does not divide 256: drop bytes >= 248 so every character is equally likely.
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += ALPHANUMERIC[byte % 62];
    }
  }
  return out;
}

/** The mode a merchant key was issued in (`pk_live_…`, `sk_test_…`), undefined for what is no key of either. */
export function modeOfKey(key: string): DeploymentMode | undefined {
  const match = /^[ps]k_(test|live)_/.exec(key);
  return match ? (match[1] as DeploymentMode) : undefined;
}

/**
 * Why `keys` cannot authenticate in a deployment of `mode`: a key of the other mode, named so a
 * merchant who sent test keys to production (or the converse) knows at once; undefined otherwise.
 */
export function keyOfOtherMode(mode: DeploymentMode, ...keys: (string | undefined)[]): string | undefined {
  const other = keys
    .map((key) => (key ? modeOfKey(key) : undefined))
    .find((keyMode) => keyMode !== undefined && keyMode !== mode);
  return other === undefined ? undefined : `a ${other} key was sent to a ${mode} deployment`;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest();

function toMerchant(row: MerchantRow): Merchant {
  return {
    id: row.id,
    name: row.name,
    status: row.status,
    publicKey: row.public_key,
    collectionCallbackUrl: row.collection_callback_url,
    servicePaymentsCallbackUrl: row.service_payments_callback_url,
    payoutApprovalThreshold: row.payout_approval_threshold === null ? null : Number(row.payout_approval_threshold),
    payoutDailyCap: row.payout_daily_cap === null ? null : Number(row.payout_daily_cap),
    payoutsCallbackUrl: row.payouts_callback_url,
    createdAt: new Date(row.created_at).toISOString(),
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}

const CACHE_TTL_MS = 5_000;

/**
 * Merchant accounts in STORE_URL. Secret and signing keys are sealed with the master key;
 * the secret key is also kept as a SHA-256 hash so authenticating a request needs no
 * decryption. Lookups by public key are cached briefly: key changes made by another
 * instance take effect within CACHE_TTL_MS.
 */
export class MerchantAccounts {
  private readonly byPublicKey = new Map<string, { row: MerchantRow | null; until: number }>();

  private constructor(
    private readonly sql: SqlDatabase,
    private readonly box: SecretBox,
    private readonly mode: DeploymentMode,
  ) {}

  /** `mode` (MODE) is what the keys it issues say: `pk_test_`/`sk_test_` or `pk_live_`/`sk_live_`. */
  static async open(sql: SqlDatabase, box: SecretBox, mode: DeploymentMode = 'test'): Promise<MerchantAccounts> {
    await migrate(sql, MERCHANTS_MIGRATIONS);
    return new MerchantAccounts(sql, box, mode);
  }

  async create(input: {
    name: string;
    collectionCallbackUrl?: string | null;
    servicePaymentsCallbackUrl?: string | null;
    payoutsCallbackUrl?: string | null;
  }): Promise<{ merchant: Merchant; keys: MerchantKeys }> {
    const keys = this.newKeys();
    const [row] = await this.sql.query<MerchantRow>(
      `insert into merchants (id, name, public_key, secret_key_hash, secret_key_sealed, signing_key_sealed, collection_callback_url, service_payments_callback_url, payouts_callback_url)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9) returning *`,
      [
        `mer_${randomAlphanumeric(16)}`,
        input.name,
        keys.publicKey,
        sha256(keys.secretKey).toString('hex'),
        this.box.seal(keys.secretKey),
        this.box.seal(keys.signingKey),
        input.collectionCallbackUrl ?? null,
        input.servicePaymentsCallbackUrl ?? null,
        input.payoutsCallbackUrl ?? null,
      ],
    );
    return { merchant: toMerchant(row), keys };
  }

  async get(id: string): Promise<Merchant | null> {
    const [row] = await this.sql.query<MerchantRow>('select * from merchants where id = $1', [id]);
    return row ? toMerchant(row) : null;
  }

  async update(
    id: string,
    patch: {
      status?: MerchantStatus;
      collectionCallbackUrl?: string | null;
      servicePaymentsCallbackUrl?: string | null;
      payoutApprovalThreshold?: number | null;
      payoutDailyCap?: number | null;
      payoutsCallbackUrl?: string | null;
    },
  ): Promise<Merchant | null> {
    const [row] = await this.sql.query<MerchantRow>(
      `update merchants set
         status = coalesce($2, status),
         collection_callback_url = case when cast($3 as boolean) then $4 else collection_callback_url end,
         service_payments_callback_url = case when cast($5 as boolean) then $6 else service_payments_callback_url end,
         payout_approval_threshold = case when cast($7 as boolean) then cast($8 as bigint) else payout_approval_threshold end,
         payout_daily_cap = case when cast($9 as boolean) then cast($10 as bigint) else payout_daily_cap end,
         payouts_callback_url = case when cast($11 as boolean) then $12 else payouts_callback_url end,
         updated_at = $13
       where id = $1 returning *`,
      // The time from here, $13 and below: the same statement on every engine.
      [
        id,
        patch.status ?? null,
        patch.collectionCallbackUrl !== undefined,
        patch.collectionCallbackUrl ?? null,
        patch.servicePaymentsCallbackUrl !== undefined,
        patch.servicePaymentsCallbackUrl ?? null,
        patch.payoutApprovalThreshold !== undefined,
        patch.payoutApprovalThreshold ?? null,
        patch.payoutDailyCap !== undefined,
        patch.payoutDailyCap ?? null,
        patch.payoutsCallbackUrl !== undefined,
        patch.payoutsCallbackUrl ?? null,
        new Date().toISOString(),
      ],
    );
    if (row) this.forget(row.public_key);
    return row ? toMerchant(row) : null;
  }

  /** Issues new keys of the given kinds; the old ones stop working at once in this instance. */
  async rotateKeys(id: string, kinds: KeyKind[]): Promise<{ merchant: Merchant; keys: MerchantKeys } | null> {
    const fresh = this.newKeys();
    return this.sql.transaction(async (tx) => {
      const [current] = await tx.query<MerchantRow>(`select * from merchants where id = $1${forUpdate(tx)}`, [id]);
      if (!current) return null;
      const api = kinds.includes('api');
      const signing = kinds.includes('signing');
      const [row] = await tx.query<MerchantRow>(
        `update merchants set public_key = $2, secret_key_hash = $3, secret_key_sealed = $4, signing_key_sealed = $5, updated_at = $6
         where id = $1 returning *`,
        [
          id,
          api ? fresh.publicKey : current.public_key,
          api ? sha256(fresh.secretKey).toString('hex') : current.secret_key_hash,
          api ? this.box.seal(fresh.secretKey) : current.secret_key_sealed,
          signing ? this.box.seal(fresh.signingKey) : current.signing_key_sealed,
          new Date().toISOString(),
        ],
      );
      this.forget(current.public_key);
      return { merchant: toMerchant(row), keys: this.keysOf(row) };
    });
  }

  /** The merchant's keys in clear, for the admin who owns them and for signing callbacks. */
  async keys(id: string): Promise<MerchantKeys | null> {
    const [row] = await this.sql.query<MerchantRow>('select * from merchants where id = $1', [id]);
    return row ? this.keysOf(row) : null;
  }

  /**
   * The merchant holding `publicKey`, or null. With `secretKey`, also null unless it matches
   * (compared in constant time on hashes).
   */
  async authenticate(publicKey: string, secretKey?: string): Promise<Merchant | null> {
    const row = await this.rowByPublicKey(publicKey);
    if (!row) return null;
    if (secretKey !== undefined && !timingSafeEqual(sha256(secretKey), Buffer.from(row.secret_key_hash, 'hex')))
      return null;
    return toMerchant(row);
  }

  private async rowByPublicKey(publicKey: string): Promise<MerchantRow | null> {
    const cached = this.byPublicKey.get(publicKey);
    if (cached && cached.until > Date.now()) return cached.row;
    const [row] = await this.sql.query<MerchantRow>('select * from merchants where public_key = $1', [publicKey]);
    if (this.byPublicKey.size > 10_000) this.byPublicKey.clear();
    this.byPublicKey.set(publicKey, { row: row ?? null, until: Date.now() + CACHE_TTL_MS });
    return row ?? null;
  }

  private forget(publicKey: string): void {
    this.byPublicKey.delete(publicKey);
  }

  private keysOf(row: MerchantRow): MerchantKeys {
    return {
      publicKey: row.public_key,
      secretKey: this.box.open(row.secret_key_sealed),
      signingKey: this.box.open(row.signing_key_sealed),
    };
  }

  private newKeys(): MerchantKeys {
    return {
      publicKey: `pk_${this.mode}_${randomAlphanumeric(32)}`,
      secretKey: `sk_${this.mode}_${randomAlphanumeric(40)}`,
      signingKey: randomAlphanumeric(48),
    };
  }
}
