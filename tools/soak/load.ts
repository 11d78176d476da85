import { describe, persist, type Answer, type Answered, type Request, type RetryCounts } from './http';
import {
  MONEY_OUT_EVERY,
  MONEY_OUT_SCENARIOS,
  moneyOutFlow,
  payoutBody,
  refundBody,
  type MoneyOutFlow,
  type MoneyOutScenario,
} from './money-out';

export interface Merchant {
  index: number;
  id: string;
  publicKey: string;
  secretKey: string;
  signingKey: string;
}

type Scenario =
  | { kind: 'momo'; msisdn: string; confirm: boolean; weight: number }
  | { kind: 'card'; card: string; weight: number }
  | { kind: 'prn'; msisdn: string; chargeCustomer: boolean; prnStatus?: 'PAID'; weight: number };

/**
 * The mix: the sandbox's outcome is told by the phone number's or card number's ending
 * (libs/sandbox/providers); a collect-for-payment PRN already PAID is refused by the biller.
 */
const SCENARIOS: Scenario[] = [
  { kind: 'momo', msisdn: '256772000001', confirm: true, weight: 3 }, // completed
  { kind: 'momo', msisdn: '256772000002', confirm: true, weight: 1 }, // failed: not enough funds
  { kind: 'momo', msisdn: '256752000003', confirm: true, weight: 1 }, // cancelled: declined (Airtel)
  { kind: 'momo', msisdn: '256772000004', confirm: true, weight: 1 }, // cancelled: prompt never answered
  { kind: 'momo', msisdn: '256772000005', confirm: true, weight: 1 }, // completed, no provider callback: polled
  { kind: 'momo', msisdn: '256772000001', confirm: false, weight: 2 }, // completed, require_confirmation=false
  { kind: 'card', card: '4242424242424242', weight: 2 }, // completed
  { kind: 'card', card: '4000000000000002', weight: 1 }, // failed: declined
  { kind: 'card', card: 'cancel', weight: 1 }, // cancelled on the checkout page
  { kind: 'prn', msisdn: '256772000001', chargeCustomer: false, weight: 2 }, // PRN paid, the merchant bears the fee
  { kind: 'prn', msisdn: '256772000001', chargeCustomer: true, weight: 1 }, // PRN paid
  { kind: 'prn', msisdn: '256772000002', chargeCustomer: true, weight: 1 }, // collection failed: payment.failed
  { kind: 'prn', msisdn: '256772000001', chargeCustomer: true, prnStatus: 'PAID', weight: 1 }, // PRN refused
];
const PRN_AMOUNT = 25_000;
const MOMO_AMOUNT = 81_000;

function pick<T extends { weight: number }>(scenarios: T[]): T {
  let roll = Math.random() * scenarios.reduce((sum, scenario) => sum + scenario.weight, 0);
  for (const scenario of scenarios) if ((roll -= scenario.weight) < 0) return scenario;
  return scenarios[0];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One collection as the load generator drove it. */
export interface Flow {
  kind: Scenario['kind'];
  /** e.g. "momo 256772000002 confirmed". */
  scenario: string;
  merchant: Merchant;
  merchantReference: string;
  requireConfirmation: boolean;
  prn?: string;
  startedAt: number;
  /** Initialize requests sent: more than 1 when it was retried. */
  attempts: number;
  acknowledgedAt?: number;
  internalReference?: string;
  /** The refund asked for of this collection, once accepted. */
  refundReference?: string;
  /** Answers no retry could help with, e.g. "confirm: 404 transaction not found". */
  unexpected: string[];
}

export interface LoadOptions {
  gateways: string[];
  sandbox: string;
  adminToken: string;
  /** Collections started per second (and a refund or payout beside every MONEY_OUT_EVERY-th). */
  rate: number;
  runId: string;
  timeoutMs: number;
}

/**
 * A steady mixed load through both gateways: each collection is initialized with a unique
 * merchant_reference and then driven as its customer would (confirm, pay on the checkout page);
 * beside them, payouts and refunds (of collections of their own, once COMPLETED), each with a
 * unique reference. A request answered 5xx, or not at all, is sent again unchanged, alternating
 * gateways, until it is answered or the load is told to give up.
 */
export class LoadGenerator {
  readonly flows: Flow[] = [];
  readonly moneyOut: MoneyOutFlow[] = [];
  readonly retries: RetryCounts = {};
  private readonly running = new Set<Promise<void>>();
  private ticker?: NodeJS.Timeout;
  private giveUpAt = Infinity;
  private sequence = 0;

  constructor(
    private readonly options: LoadOptions,
    private readonly merchants: Merchant[],
  ) {}

  /** Merchants whose callbacks go to `callbackUrl(index)`, each with a wallet topped up for the fees it bears. */
  static async merchants(
    options: LoadOptions,
    count: number,
    callbackUrl: (index: number) => string,
  ): Promise<Merchant[]> {
    const merchants: Merchant[] = [];
    const retries: RetryCounts = {};
    const deadline = Date.now() + 120_000;
    const giveUpAt = () => deadline;
    for (let index = 0; index < count; index += 1) {
      const created = expect(
        await persist(
          () => ({
            method: 'POST',
            url: `${options.gateways[0]}/admin/v1/merchants`,
            headers: { authorization: `Bearer ${options.adminToken}` },
            body: {
              name: `Soak merchant ${index}`,
              collection_callback_url: callbackUrl(index),
              service_payments_callback_url: callbackUrl(index),
            },
          }),
          { timeoutMs: options.timeoutMs, giveUpAt, retries },
        ),
        201,
        'create a merchant',
      );
      const data = created.body.data ?? {};
      const merchant = {
        index,
        id: String(data.id),
        publicKey: String(data.public_key),
        secretKey: String(data.secret_key),
        signingKey: String(data.signing_key),
      };
      // The reference makes a retried top-up the same top-up.
      const topUp = {
        merchant_id: merchant.id,
        currency: 'UGX',
        amount: 10_000_000,
        reference: `soak-${options.runId}-${index}`,
      };
      expect(
        await persist(
          () => ({
            method: 'POST',
            url: `${options.gateways[0]}/admin/v1/wallets/top-up`,
            headers: { authorization: `Bearer ${options.adminToken}` },
            body: topUp,
          }),
          { timeoutMs: options.timeoutMs, giveUpAt, retries },
        ),
        200,
        'top up a wallet',
      );
      merchants.push(merchant);
    }
    return merchants;
  }

  start(): void {
    const every = 1_000 / this.options.rate;
    this.ticker = setInterval(() => {
      const sequence = this.sequence++;
      this.track(this.run(sequence));
      if (sequence % MONEY_OUT_EVERY === MONEY_OUT_EVERY - 1) this.track(this.runMoneyOut(sequence));
    }, every);
  }

  private track(work: Promise<void>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  /** Starts no more flows; the ones under way keep retrying until `giveUpAt`, then this resolves. */
  async stop(giveUpAt: number): Promise<void> {
    clearInterval(this.ticker);
    this.giveUpAt = giveUpAt;
    await Promise.all([...this.running]);
  }

  private newFlow(scenario: Scenario, merchant: Merchant, merchantReference: string): Flow {
    const flow: Flow = {
      kind: scenario.kind,
      scenario: scenarioName(scenario),
      merchant,
      merchantReference,
      requireConfirmation: scenario.kind !== 'prn' && !(scenario.kind === 'momo' && !scenario.confirm),
      startedAt: Date.now(),
      attempts: 0,
      unexpected: [],
    };
    this.flows.push(flow);
    return flow;
  }

  private async run(sequence: number): Promise<void> {
    const scenario = pick(SCENARIOS);
    const merchant = this.merchants[sequence % this.merchants.length];
    const flow = this.newFlow(scenario, merchant, `soak-${this.options.runId}-${sequence}`);
    try {
      if (scenario.kind === 'prn') await this.collectForPayment(flow, scenario);
      else await this.initialize(flow, scenario);
    } catch (error) {
      flow.unexpected.push(`load generator: ${(error as Error).message}`);
    }
  }

  private async runMoneyOut(sequence: number): Promise<void> {
    const scenario = pick(MONEY_OUT_SCENARIOS);
    // Every merchant in turn (the sequence of a money-out tick is always the same modulo MONEY_OUT_EVERY).
    const merchant = this.merchants[Math.floor(sequence / MONEY_OUT_EVERY) % this.merchants.length];
    const flow = moneyOutFlow(scenario, merchant, this.options.runId, sequence);
    this.moneyOut.push(flow);
    try {
      if (scenario.kind === 'payout')
        await this.requestMoneyOut(flow, '/v1/payouts', payoutBody(flow, scenario.msisdn));
      else await this.refund(flow, scenario, sequence);
    } catch (error) {
      flow.unexpected.push(`load generator: ${(error as Error).message}`);
    }
  }

  /** A collection without confirmation from the payer; once it is COMPLETED, a refund of part of it. */
  private async refund(
    flow: MoneyOutFlow,
    scenario: Extract<MoneyOutScenario, { kind: 'refund' }>,
    sequence: number,
  ): Promise<void> {
    const momo = { kind: 'momo', msisdn: scenario.payer, confirm: false, weight: 0 } as const;
    const collection = (flow.collection = this.newFlow(
      momo,
      flow.merchant,
      `soak-${this.options.runId}-${sequence}-rf`,
    ));
    collection.scenario += ', to refund';
    await this.initialize(collection, momo);
    const ref = collection.internalReference;
    if (!ref) return void (flow.notRequested = 'its collection was never acknowledged');
    const status = await this.finalStatus(flow, ref);
    if (status !== 'COMPLETED')
      return void (flow.notRequested = `its collection ${status ? `ended ${status}` : 'was not seen final'}`);
    if (await this.requestMoneyOut(flow, '/v1/refunds', refundBody(flow, ref, MOMO_AMOUNT)))
      collection.refundReference = flow.reference;
  }

  /** The collection's status once it is no longer PENDING (asked every second); undefined when the load gave up. */
  private async finalStatus(flow: MoneyOutFlow, internalReference: string): Promise<string | undefined> {
    const { merchant } = flow;
    while (Date.now() <= this.giveUpAt) {
      const answer = await this.send(
        flow,
        'read its collection',
        (gateway) => ({
          method: 'GET',
          url: `${gateway}/v1/collections/${internalReference}`,
          headers: { 'public-key': merchant.publicKey, 'secret-key': merchant.secretKey },
        }),
        [200],
      );
      if (!answer) return undefined;
      const status = String(answer.body.data?.transaction_status);
      if (status !== 'PENDING') return status;
      await sleep(1_000);
    }
    return undefined;
  }

  /** POSTs a payout or refund (the same body on every attempt) with both keys; true once a 202 came back. */
  private async requestMoneyOut(flow: MoneyOutFlow, path: string, body: Record<string, unknown>): Promise<boolean> {
    const { merchant } = flow;
    const answer = await this.send(
      flow,
      path,
      (gateway) => {
        flow.attempts += 1;
        return {
          method: 'POST',
          url: `${gateway}${path}`,
          headers: { 'public-key': merchant.publicKey, 'secret-key': merchant.secretKey },
          body,
        };
      },
      [202],
    );
    if (answer) flow.acceptedAt = Date.now();
    return answer !== undefined;
  }

  private async initialize(flow: Flow, scenario: Exclude<Scenario, { kind: 'prn' }>): Promise<void> {
    const body =
      scenario.kind === 'momo'
        ? { ...mobileMoney(flow, scenario.msisdn), require_confirmation: scenario.confirm }
        : {
            merchant_reference: flow.merchantReference,
            transaction_method: 'CARD',
            provider_code: 'card_ug',
            currency: 'UGX',
            amount: 25_000,
            customer_name: 'Soak Customer',
            redirect_url: 'https://shop.example.com/paid',
          };
    if (!(await this.acknowledged(flow, '/v1/collections/initialize', body)) || !flow.requireConfirmation) return;
    const confirmed = await this.send(
      flow,
      'confirm',
      (gateway) => ({
        method: 'POST',
        url: `${gateway}/v1/collections/confirm`,
        headers: { 'public-key': flow.merchant.publicKey },
        body: { internal_reference: flow.internalReference },
      }),
      [202, 409],
    );
    if (scenario.kind !== 'card' || confirmed?.status !== 202) return; // 409: already final (the confirmation timed out)
    const paymentUrl = confirmed.body.data?.payment_url;
    if (typeof paymentUrl !== 'string' || !URL.canParse(paymentUrl)) {
      flow.unexpected.push(`confirm: 202 without a payment_url (${JSON.stringify(confirmed.body.data)})`);
      return;
    }
    // The customer on the checkout page, without a browser: the form's POST (303 to the return URL; 410 once closed).
    const checkout: Request =
      scenario.card === 'cancel'
        ? { method: 'POST', url: `${paymentUrl}/cancel`, form: {} }
        : { method: 'POST', url: paymentUrl, form: { card_number: scenario.card, expiry: '12/40', cvv: '123' } };
    await this.send(flow, 'checkout', () => checkout, [303, 410]);
  }

  private async collectForPayment(flow: Flow, scenario: Extract<Scenario, { kind: 'prn' }>): Promise<void> {
    const prn = {
      amount: PRN_AMOUNT,
      currency: 'UGX',
      service_name: 'URA - Domestic Tax',
      ...(scenario.prnStatus && { status: scenario.prnStatus }),
    };
    const created = await this.send(
      flow,
      'create PRN',
      () => ({
        method: 'POST',
        url: `${this.options.sandbox}/sandbox/v1/prns`,
        headers: { authorization: `Bearer ${this.options.adminToken}` },
        body: prn,
      }),
      [201],
    );
    if (!created) return;
    flow.prn = String(created.body.data?.prn);
    await this.acknowledged(flow, '/v1/collections/collect-for-payment', {
      ...mobileMoney(flow, scenario.msisdn),
      amount: PRN_AMOUNT,
      prn: flow.prn,
      charge_customer: scenario.chargeCustomer,
      require_confirmation: false,
    });
  }

  /** Initializes (the same body on every attempt); true once a 202 came back. */
  private async acknowledged(flow: Flow, path: string, body: Record<string, unknown>): Promise<boolean> {
    const answer = await this.send(
      flow,
      path,
      (gateway) => {
        flow.attempts += 1;
        return { method: 'POST', url: `${gateway}${path}`, headers: { 'public-key': flow.merchant.publicKey }, body };
      },
      [202],
    );
    if (!answer) return false;
    flow.acknowledgedAt = Date.now();
    flow.internalReference = String(answer.body.data?.internal_reference);
    return true;
  }

  /** Sends until answered; an answer not in `expected` (or giving up) is recorded on the flow. */
  private async send(
    flow: { unexpected: string[] },
    step: string,
    request: (gateway: string) => Request,
    expected: number[],
  ): Promise<Answered | undefined> {
    const first = Math.floor(Math.random() * this.options.gateways.length);
    const gateways = this.options.gateways;
    const answer: Answer = await persist((attempt) => request(gateways[(first + attempt) % gateways.length]), {
      timeoutMs: this.options.timeoutMs,
      giveUpAt: () => this.giveUpAt,
      retries: this.retries,
    });
    if ('status' in answer && expected.includes(answer.status)) return answer;
    flow.unexpected.push(`${step}: ${'error' in answer ? 'gave up: ' : ''}${describe(answer)}`);
    return undefined;
  }
}

function mobileMoney(flow: Flow, msisdn: string): Record<string, unknown> {
  return {
    merchant_reference: flow.merchantReference,
    transaction_method: 'MOBILE_MONEY',
    provider_code: msisdn.startsWith('25675') ? 'airtel_money_ug' : 'mtn_momo_ug',
    currency: 'UGX',
    amount: MOMO_AMOUNT,
    msisdn,
    customer_name: 'Soak Customer',
    description: 'Soak order',
  };
}

function scenarioName(scenario: Scenario): string {
  switch (scenario.kind) {
    case 'momo':
      return `momo ${scenario.msisdn}${scenario.confirm ? ' confirmed' : ' without confirmation'}`;
    case 'card':
      return `card ${scenario.card}`;
    case 'prn':
      return `collect-for-payment ${scenario.msisdn}${scenario.chargeCustomer ? ' charge_customer' : ''}${scenario.prnStatus ? ` PRN ${scenario.prnStatus}` : ''}`;
  }
}

function expect(answer: Answer, status: number, what: string): Answered {
  if ('status' in answer && answer.status === status) return answer;
  throw new Error(`cannot ${what}: ${describe(answer)}`);
}
