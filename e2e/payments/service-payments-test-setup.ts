/**
 * Shared setup of the service-payments specs (service-payments.*.spec.ts): one in-process
 * Paygate on PGlite per spec file, collect-for-payment collections initiated through the
 * merchant API (collections announces each as collections.ServicePaymentRequested), and the
 * sandbox biller's admin routes. Each collection waits for the merchant's confirmation, which
 * settle gives through the API; the sandbox provider then answers as the collection's terms
 * chose (its test numbers), so each spec decides how its collection ends. Two faults are
 * injected below the API: a deadline passing (the Expire a due timer would run) and a broker
 * redelivering an event.
 *
 * Collection timers are an hour long, so nothing changes a collection behind a spec's back;
 * payment retries are short.
 *
 * Test code (it uses jest's `expect`): jest does not collect it (not *.spec.ts) and the build
 * leaves it out (tsconfig.build.json).
 */
import {
  collectionDecider,
  type CollectionCommand,
  type CollectionState,
  type CollectionEvent,
} from '@paygate/collections-domain';
import {
  collectionStream,
  FindServicePayment,
  WalletBalances,
  servicePaymentStream,
  walletId,
  type CollectionStatus,
  type ServicePaymentSummary,
  type WalletBalance,
} from '@paygate/contracts';
import { DeciderRuntime, type RecordedEvent } from '@paygate/event-store';
import { walletLedgerDecider, type Wallet } from '@paygate/payments-domain';
import {
  eventually,
  mobileMoneyRequest,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  TEST_MASTER_KEY,
  TEST_RATE_LIMITS,
  TEST_TIMERS,
} from '@paygate/testing';
import { startInProcess, type InProcessPaygate } from '@paygate/standalone';

type Json = Record<string, unknown>;

const HOUR_MS = '3600000';

/** Three attempts at the biller, 200 then 400 ms apart; a requested payment is looked at again after 3 s. */
export const PAYMENT_TEST_ENV = {
  ...TEST_TIMERS,
  ...TEST_RATE_LIMITS,
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

export type SettledStatus = Exclude<CollectionStatus, 'PENDING'>;

/**
 * UGX 25,000 by MTN mobile money; the fee (1.5 %, 375) borne by the merchant unless
 * chargeCustomer: the wallet is credited 24,625. `outcome` is how the customer will answer the
 * prompt once the merchant confirms (the sandbox's test numbers, docs/api.md "Sandbox"):
 * COMPLETED unless said otherwise.
 */
export interface CollectionTerms {
  prn?: string;
  chargeCustomer?: boolean;
  outcome?: SettledStatus;
}

/** The sandbox MoMo numbers whose prompt ends as each status. */
const MSISDN_FOR: Record<SettledStatus, string> = {
  COMPLETED: '256772000001',
  FAILED: '256772000002',
  CANCELLED: '256772000003',
};

export class PaymentsHarness {
  private readonly collections: DeciderRuntime<CollectionCommand, CollectionEvent, CollectionState>;
  /** Every merchant of this Paygate, by id: a collection is initiated with its merchant's keys. */
  private readonly merchants = new Map<string, PaygateClient>();
  /** How each collection initiated here will end once confirmed, and whose it is. */
  private readonly initiated = new Map<string, { outcome: SettledStatus; client: PaygateClient }>();

  private constructor(
    readonly paygate: InProcessPaygate,
    readonly merchant: PaygateClient,
  ) {
    this.collections = new DeciderRuntime(paygate.infrastructure.store, collectionDecider);
    this.merchants.set(merchant.merchant.id, merchant);
  }

  /** A new Paygate with a new merchant, or (after a restart on the same store) the merchant it had. */
  static async start(env: Record<string, string> = {}, merchant?: PaygateClient): Promise<PaymentsHarness> {
    const paygate = await startInProcess({ ...PAYMENT_TEST_ENV, ...env });
    const client = merchant
      ? new PaygateClient(paygate.url, merchant.merchant)
      : await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Payments spec merchant');
    return new PaymentsHarness(paygate, client);
  }

  close(): Promise<void> {
    return this.paygate.close();
  }

  async newMerchant(name = 'Another merchant'): Promise<PaygateClient> {
    const client = await PaygateClient.withNewMerchant(this.paygate.url, TEST_ADMIN_TOKEN, name);
    this.merchants.set(client.merchant.id, client);
    return client;
  }

  // ---- collections: initiated through the API, ended as the provider or the deadline would ----

  /**
   * Initiates a collection through the merchant API: with a PRN, POST
   * /v1/collections/collect-for-payment; without, /v1/collections/initialize. It waits for the
   * merchant's confirmation, which only settle gives, so nothing reaches the provider before.
   */
  async initiate(terms: CollectionTerms = {}, merchantId = this.merchant.merchant.id): Promise<string> {
    const client = this.merchants.get(merchantId);
    if (!client) throw new Error(`no merchant ${merchantId} in this harness`);
    const { chargeCustomer = false, prn, outcome = 'COMPLETED' } = terms;
    const body = mobileMoneyRequest({
      amount: 25_000,
      msisdn: MSISDN_FOR[outcome],
      charge_customer: chargeCustomer,
      require_confirmation: true,
      ...(prn !== undefined && { prn }),
    });
    const answer = await client.request(
      'POST',
      prn === undefined ? '/v1/collections/initialize' : '/v1/collections/collect-for-payment',
      { body },
    );
    expect(answer.status).toBe(202);
    const ref = String(answer.body.data.internal_reference);
    this.initiated.set(ref, { outcome, client });
    return ref;
  }

  /**
   * Collections accepts the PRN on payments.PrnValidated: waits until it has, and the collection awaits its
   * confirmation.
   */
  async prnAccepted(ref: string): Promise<void> {
    await eventually(
      async () => {
        const { state } = await this.collections.load(ref);
        return state?.phase === 'AWAITING_CONFIRMATION' ? state : undefined;
      },
      10_000,
      `collections to accept the PRN of ${ref}`,
    );
  }

  /**
   * The collection's deadline passes while it still awaits the PRN verdict: CANCELLED (collections.CollectionSettled).
   */
  async passPrnDeadline(ref: string): Promise<void> {
    const { state } = await this.collections.handle(ref, {
      type: 'Expire',
      timer: 'confirmation',
      at: new Date(Date.now() + 7_200_000).toISOString(),
    });
    expect(state).toMatchObject({ status: 'CANCELLED', cancellationReason: 'PRN_VALIDATION_TIMEOUT' });
  }

  /**
   * The merchant confirms through the API; the sandbox provider prompts the customer, who answers
   * as the collection's terms said, and calls back: the collection settles
   * (collections.CollectionSettled). `status` names that outcome, so a spec reads as it runs.
   */
  async settle(ref: string, status: SettledStatus): Promise<void> {
    const collection = this.initiated.get(ref);
    if (!collection) throw new Error(`${ref} was not initiated by this harness`);
    if (collection.outcome !== status)
      throw new Error(`${ref} was initiated to end ${collection.outcome}, not ${status} (CollectionTerms.outcome)`);
    expect((await collection.client.confirm(ref)).status).toBe(202);
    expect(await collection.client.finalState(ref)).toMatchObject({ transaction_status: status });
  }

  /** The broker hands an event over again: the same published event once more in the collection's stream. */
  async redeliver(ref: string, type: string): Promise<void> {
    const events = await this.paygate.infrastructure.store.readStream(collectionStream(ref));
    const event = events.filter((candidate) => candidate.type === type).pop();
    if (!event) throw new Error(`no ${type} in ${ref}`);
    await this.paygate.infrastructure.store.appendToStream(
      collectionStream(ref),
      [{ type: event.type, data: event.data, metadata: event.metadata }],
      {
        expectedRevision: 'any',
      },
    );
  }

  // ---- service-payments ----

  paymentEvents(ref: string): Promise<RecordedEvent[]> {
    return this.paygate.infrastructure.store.readStream(servicePaymentStream(ref));
  }

  /**
   * Waits until the payment's stream holds `type` (a domain or a published payments.* event) and returns the stream.
   */
  async eventuallyHas(ref: string, type: string, timeoutMs = 15_000): Promise<RecordedEvent[]> {
    return eventually(
      async () => {
        const events = await this.paymentEvents(ref);
        return events.some((event) => event.type === type) ? events : undefined;
      },
      timeoutMs,
      `${type} in service-payment-${ref}`,
    );
  }

  /** The wallet ledger's own state, from its stream. */
  async wallet(currency = 'UGX', merchantId = this.merchant.merchant.id): Promise<Wallet | null> {
    const { state } = await new DeciderRuntime(this.paygate.infrastructure.store, walletLedgerDecider).load(
      walletId({ merchantId, currency }),
    );
    return state;
  }

  /** WalletBalances through the typed command bus, as the gateway asks. */
  async balances(merchantId = this.merchant.merchant.id): Promise<WalletBalance[]> {
    return (await this.paygate.infrastructure.commands.send(new WalletBalances({ merchantId }))).balances;
  }

  /**
   * FindServicePayment through the typed command bus, once its read model shows `statusMessage` (it follows the
   * stream).
   */
  async eventuallyServicePayment(
    ref: string,
    statusMessage: string,
    merchantId = this.merchant.merchant.id,
  ): Promise<ServicePaymentSummary> {
    return eventually(
      async () => {
        const { servicePayment } = await this.paygate.infrastructure.commands.send(
          new FindServicePayment({ merchantId, internalReference: ref }),
        );
        return servicePayment?.statusMessage === statusMessage ? servicePayment : undefined;
      },
      10_000,
      `service payment of ${ref} to show "${statusMessage}"`,
    );
  }

  /** Waits until the read model shows `expected` for the merchant's UGX wallet. */
  async eventuallyBalance(
    expected: { balance: number; available: number },
    merchantId = this.merchant.merchant.id,
    currency = 'UGX',
  ): Promise<void> {
    await eventually(
      async () => {
        const found = (await this.balances(merchantId)).find((balance) => balance.currency === currency);
        return found && found.balance === expected.balance && found.available === expected.available
          ? found
          : undefined;
      },
      10_000,
      `wallet ${JSON.stringify(expected)}`,
    );
  }

  // ---- admin routes (the admin API and the sandbox's), called with the admin token ----

  async admin(
    method: string,
    path: string,
    json?: unknown,
    token: string | null = TEST_ADMIN_TOKEN,
  ): Promise<{ status: number; body: { code: number; status: string; message: string; data: Json } }> {
    const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
    if (json !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(`${this.paygate.url}${path}`, {
      method,
      headers,
      body: json === undefined ? undefined : JSON.stringify(json),
    });
    return {
      status: response.status,
      body: (await response.json()) as { code: number; status: string; message: string; data: Json },
    };
  }

  async topUp(amount: number, merchantId = this.merchant.merchant.id, currency = 'UGX'): Promise<void> {
    const answer = await this.admin('POST', '/admin/v1/wallets/top-up', { merchant_id: merchantId, currency, amount });
    expect(answer.status).toBe(200);
  }

  /** A new PRN at the sandbox biller (UGX 25,000, AVAILABLE unless `fields` say otherwise). */
  async createPrn(fields: Json = {}): Promise<string> {
    const answer = await this.admin('POST', '/sandbox/v1/prns', { amount: 25_000, currency: 'UGX', ...fields });
    expect(answer.status).toBe(201);
    return answer.body.data.prn as string;
  }

  async prnAtBiller(prn: string): Promise<{ status: string; payment_calls: number; payments: Json[] }> {
    const answer = await this.admin('GET', `/sandbox/v1/prns/${prn}`);
    expect(answer.status).toBe(200);
    return answer.body.data as { status: string; payment_calls: number; payments: Json[] };
  }

  async billerFaults(faults: { fail_next?: number; delay_ms?: number; fail_lookups_next?: number }): Promise<void> {
    expect((await this.admin('PUT', '/sandbox/v1/biller/faults', faults)).status).toBe(200);
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
