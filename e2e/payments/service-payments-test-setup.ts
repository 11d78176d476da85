/**
 * Shared setup of the service-payments specs (service-payments.*.spec.ts): one in-process
 * Paygate on PGlite per spec file, with collect-for-payment collections driven through the
 * Collection decider on the decider runtime, exactly as the collections service appends them
 * (CollectionInitiated with its published collections.ServicePaymentRequested, and so on), and
 * the sandbox biller's admin routes. Collections' own reaction to the PRN verdict is not wired
 * yet, so the specs accept the PRN themselves (AcceptPrn), as collections will.
 *
 * Collection timers are an hour long, so nothing changes a collection behind a spec's back;
 * payment retries are short.
 *
 * Test code (it uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import { randomInt } from 'node:crypto';
import { collectionDecider, type CollectionCommand, type CollectionState } from '@paygate/collections-domain';
import {
  collectionStream,
  PAYMENTS_SERVICE,
  type CollectionEvent,
  servicePaymentStream,
  walletId,
  type CollectionInitiatedV1,
  type CollectionStatus,
  type WalletBalance,
} from '@paygate/contracts';
import { DeciderRuntime, type RecordedEvent } from '@paygate/event-store';
import { walletLedgerDecider, type Wallet } from '@paygate/payments-domain';
import { eventually, PaygateClient, TEST_ADMIN_TOKEN, TEST_MASTER_KEY, TEST_RATE_LIMITS, TEST_TIMERS } from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';

type Json = Record<string, unknown>;

const HOUR_MS = '3600000';

/** Three attempts at the biller, 200 then 400 ms apart; a requested payment is looked at again after 3 s. */
export const PAYMENT_TEST_ENV = {
  ...TEST_TIMERS, ...TEST_RATE_LIMITS,
  CONFIRMATION_TIMEOUT_MS: HOUR_MS,
  PROMPT_TIMEOUT_MS: HOUR_MS,
  CHECKOUT_TIMEOUT_MS: HOUR_MS,
  PROVIDER_STATUS_POLL_MS: HOUR_MS,
  PAYMENT_RETRY_ATTEMPTS: '3',
  PAYMENT_RETRY_BASE_MS: '200',
  PAYMENT_RETRY_MAX_DELAY_MS: '400',
  PAYMENT_STATUS_POLL_MS: '3000',
  PAYMENT_TIMER_TICK_MS: '50',
  MASTER_KEY: TEST_MASTER_KEY,
  ADMIN_TOKEN: TEST_ADMIN_TOKEN,
  LOG_LEVEL: 'error',
};

/** UGX 25,000 with a fee of 375 the merchant bears (charge_customer=false): the wallet is credited 24,625. */
export interface CollectionTerms {
  prn?: string;
  currency?: string;
  requestAmount?: number;
  fee?: number;
  chargeCustomer?: boolean;
}

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const newReference = () => `PG${Array.from({ length: 24 }, () => ALPHABET[randomInt(ALPHABET.length)]).join('')}`;

export class PaymentsHarness {
  private readonly collections: DeciderRuntime<CollectionCommand, CollectionEvent, CollectionState>;
  private nextId = 1;

  private constructor(
    readonly paygate: InProcessPaygate,
    readonly merchant: PaygateClient,
  ) {
    this.collections = new DeciderRuntime(paygate.infrastructure.store, collectionDecider);
  }

  /** A new Paygate with a new merchant, or (after a restart on the same store) the merchant it had. */
  static async start(env: Record<string, string> = {}, merchant?: PaygateClient): Promise<PaymentsHarness> {
    const paygate = await startInProcess({ ...PAYMENT_TEST_ENV, ...env });
    const client = merchant ? new PaygateClient(paygate.url, merchant.merchant) : await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Payments spec merchant');
    return new PaymentsHarness(paygate, client);
  }

  close(): Promise<void> {
    return this.paygate.close();
  }

  newMerchant(name = 'Another merchant'): Promise<PaygateClient> {
    return PaygateClient.withNewMerchant(this.paygate.url, TEST_ADMIN_TOKEN, name);
  }

  // ---- collections, as the collections service appends them ----

  /** Initiates a collection (with a PRN: collect-for-payment, announced as collections.ServicePaymentRequested). */
  async initiate(terms: CollectionTerms = {}, merchantId = this.merchant.merchant.id): Promise<string> {
    const ref = newReference();
    const { currency = 'UGX', requestAmount = 25_000, fee = 375, chargeCustomer = false, prn } = terms;
    const data: CollectionInitiatedV1 = {
      id: this.nextId++,
      merchantId,
      merchantReference: `spec-${ref.slice(-8)}`,
      internalReference: ref,
      transactionMethod: 'MOBILE_MONEY',
      providerCode: 'mtn_momo_ug',
      institutionName: 'MTN Mobile Money Uganda',
      currency,
      requestAmount,
      transactionAmount: chargeCustomer ? requestAmount + fee : requestAmount,
      fee,
      totalCredit: chargeCustomer ? requestAmount : requestAmount - fee,
      chargeCustomer,
      // Waits for a confirm that only this harness sends: collections (which reacts to the PRN
      // verdict in this process) never asks the provider, so each spec decides the outcome.
      requireConfirmation: true,
      confirmationExpiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      msisdn: '256772000001',
      customerName: 'Jane Doe',
      ...(prn !== undefined && { prn }),
      requestHash: 'spec',
      initiatedAt: new Date().toISOString(),
    };
    await this.collections.handle(ref, { type: 'Initiate', data }, { expectNew: true });
    return ref;
  }

  /** What collections does on payments.PrnValidated. */
  async acceptPrn(ref: string): Promise<void> {
    await this.collections.handle(ref, { type: 'AcceptPrn', at: new Date().toISOString() });
  }

  /** The collection's deadline passes while it still awaits the PRN verdict: CANCELLED (collections.CollectionSettled). */
  async passPrnDeadline(ref: string): Promise<void> {
    const { state } = await this.collections.handle(ref, { type: 'Expire', timer: 'confirmation', at: new Date(Date.now() + 7_200_000).toISOString() });
    expect(state).toMatchObject({ status: 'CANCELLED', cancellationReason: 'PRN_VALIDATION_TIMEOUT' });
  }

  /** Confirms and records the provider's result: the collection settles (collections.CollectionSettled). */
  async settle(ref: string, status: Exclude<CollectionStatus, 'PENDING'>): Promise<void> {
    const at = () => new Date().toISOString();
    await this.collections.handle(ref, { type: 'Confirm', at: at(), implicit: true, providerExpiresAt: new Date(Date.now() + 3_600_000).toISOString() });
    const outcome =
      status === 'COMPLETED'
        ? ({ status: 'SUCCESSFUL', providerTransactionId: `momo-${ref}` } as const)
        : status === 'FAILED'
          ? ({ status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'Balance Insufficient for the transaction' } as const)
          : ({ status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'declined' } as const);
    const { state } = await this.collections.handle(ref, { type: 'RecordProviderOutcome', at: at(), outcome });
    expect(state?.status).toBe(status);
  }

  /** The broker hands an event over again: the same published event once more in the collection's stream. */
  async redeliver(ref: string, type: string): Promise<void> {
    const events = await this.paygate.infrastructure.store.readStream(collectionStream(ref));
    const event = events.filter((candidate) => candidate.type === type).pop();
    if (!event) throw new Error(`no ${type} in ${ref}`);
    await this.paygate.infrastructure.store.appendToStream(collectionStream(ref), [{ type: event.type, data: event.data, metadata: event.metadata }], { expectedRevision: 'any' });
  }

  // ---- service-payments ----

  paymentEvents(ref: string): Promise<RecordedEvent[]> {
    return this.paygate.infrastructure.store.readStream(servicePaymentStream(ref));
  }

  /** Waits until the payment's stream holds `type` (a domain or a published payments.* event) and returns the stream. */
  async eventuallyHas(ref: string, type: string, timeoutMs = 15_000): Promise<RecordedEvent[]> {
    return eventually(async () => {
      const events = await this.paymentEvents(ref);
      return events.some((event) => event.type === type) ? events : undefined;
    }, timeoutMs, `${type} in service-payment-${ref}`);
  }

  /** The wallet ledger's own state, from its stream. */
  async wallet(currency = 'UGX', merchantId = this.merchant.merchant.id): Promise<Wallet | null> {
    const { state } = await new DeciderRuntime(this.paygate.infrastructure.store, walletLedgerDecider).load(walletId({ merchantId, currency }));
    return state;
  }

  /** payments.walletBalances through the typed command bus, as the gateway asks. */
  async balances(merchantId = this.merchant.merchant.id): Promise<WalletBalance[]> {
    return (await this.paygate.infrastructure.commands.send(PAYMENTS_SERVICE, 'payments.walletBalances', { merchantId })).balances;
  }

  /** Waits until the read model shows `expected` for the merchant's UGX wallet. */
  async eventuallyBalance(expected: { balance: number; available: number }, merchantId = this.merchant.merchant.id, currency = 'UGX'): Promise<void> {
    await eventually(
      async () => {
        const found = (await this.balances(merchantId)).find((balance) => balance.currency === currency);
        return found && found.balance === expected.balance && found.available === expected.available ? found : undefined;
      },
      10_000,
      `wallet ${JSON.stringify(expected)}`,
    );
  }

  // ---- sandbox admin routes ----

  async admin(method: string, path: string, json?: unknown, token: string | null = TEST_ADMIN_TOKEN): Promise<{ status: number; body: { code: number; status: string; message: string; data: Json } }> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.paygate.url}/sandbox/v1${path}`, { method, headers, body: json === undefined ? undefined : JSON.stringify(json) });
    return { status: response.status, body: (await response.json()) as { code: number; status: string; message: string; data: Json } };
  }

  async topUp(amount: number, merchantId = this.merchant.merchant.id, currency = 'UGX'): Promise<void> {
    const answer = await this.admin('POST', '/wallets/top-up', { merchant_id: merchantId, currency, amount });
    expect(answer.status).toBe(200);
  }

  /** A new PRN at the sandbox biller (UGX 25,000, AVAILABLE unless `fields` say otherwise). */
  async createPrn(fields: Json = {}): Promise<string> {
    const answer = await this.admin('POST', '/prns', { amount: 25_000, currency: 'UGX', ...fields });
    expect(answer.status).toBe(201);
    return answer.body.data.prn as string;
  }

  async prnAtBiller(prn: string): Promise<{ status: string; payment_calls: number; payments: Json[] }> {
    const answer = await this.admin('GET', `/prns/${prn}`);
    expect(answer.status).toBe(200);
    return answer.body.data as { status: string; payment_calls: number; payments: Json[] };
  }

  async billerFaults(faults: { fail_next?: number; delay_ms?: number; fail_lookups_next?: number }): Promise<void> {
    expect((await this.admin('PUT', '/biller/faults', faults)).status).toBe(200);
  }
}

/** Types of the events in a stream, in order. */
export const typesOf = (events: RecordedEvent[]) => events.map((event) => event.type);

/** The one event of `type` (fails when there are none or several). */
export function single(events: RecordedEvent[], type: string): RecordedEvent {
  const found = events.filter((event) => event.type === type);
  expect({ type, count: found.length }).toEqual({ type, count: 1 });
  return found[0];
}

/** Lets consumers, projections and timers run a while, so that a change that should not happen would have. */
export const settleDown = (ms = 800) => new Promise((resolve) => setTimeout(resolve, ms));
