import { randomInt, randomUUID } from 'node:crypto';
import {
  ProviderRequestError,
  ProviderUnavailableError,
  type Bill,
  type BillPayment,
  type BillPaymentOperations,
  type BillPaymentRequest,
  type ConnectorRegistry,
} from '@paygate/connectors';
import { failureShowingNoSecret, NOT_AN_ANSWER, transportFailureConformance } from './connector-failure';
import { fakeProvider } from './fake-providers';
import { eventually } from '../scenarios/wait';

export interface BillPaymentConformanceTarget {
  /** The biller_code the registry knows the biller by. */
  providerCode: string;
  /** The registry whose connectors talk to the sandbox. */
  registry: () => ConnectorRegistry;
  /** A registry for the same catalogue whose biller API lives at `baseUrl`. */
  registryAt: (baseUrl: string, timeoutMs: number) => ConnectorRegistry;
  /** A registry whose connector sends `credential` instead of the one the biller issued. */
  registryWithCredential: (credential: string) => ConnectorRegistry;
  /** A bill the biller has from the start, as validate describes it. */
  knownBill: Bill;
  /** Sets up a bill at the sandbox (its admin API): AVAILABLE, payable for a while, unless told otherwise. */
  createBill: (fields?: Partial<Omit<Bill, 'prn' | 'payerName' | 'serviceName'>>) => Promise<Bill>;
  /** Payment calls the biller received for the PRN (whatever it answered) and payments it made. */
  paymentCalls: (prn: string) => Promise<{ calls: number; payments: number }>;
  /** The faults of the biller's payment calls: the next `failNext` answer 503, each takes `delayMs`. */
  injectFaults: (faults: { failNext?: number; delayMs?: number }) => Promise<void>;
  /** Credentials the connector sends: no error may show one. */
  secrets: string[];
}

/** Bodies no biller operation accepts as its answer. */
const MALFORMED_BODIES = [
  ...NOT_AN_ANSWER,
  '"PAID"',
  '{"status":"COMPLETED"}',
  '{"prn":"2250000001301","amount":"25000","currency":"UGX","status":"AVAILABLE","expires_at":"2099-01-01T00:00:00Z","payer_name":"A","service_name":"B"}',
  '{"prn":"2250000001301","amount":25000.5,"currency":"UGX","status":"AVAILABLE","expires_at":"2099-01-01T00:00:00Z","payer_name":"A","service_name":"B"}',
  '{"prn":"2250000001301","amount":25000,"currency":"UGX","status":"UNHEARD_OF","expires_at":"soon","payer_name":"A","service_name":"B"}',
  '{"payment_id":"pay_1","prn":"2250000001301","amount":25000,"currency":"UGX","reference":"r","status":"COMPLETED"}',
  '{"payment_id":"pay_1","prn":"2250000001301","amount":25000,"currency":"UGX","reference":"r","status":"REVERSED"}',
];

/** Well-formed answers that still do not answer the request (another PRN, another amount). */
const MISMATCHED = {
  validate:
    '{"prn":"9999999999999","amount":25000,"currency":"UGX","status":"AVAILABLE","expires_at":"2099-01-01T00:00:00Z","payer_name":"A","service_name":"B"}',
  pay: '{"payment_id":"pay_1","prn":"2250000001301","amount":99000,"currency":"UGX","reference":"r","status":"COMPLETED","receipt_number":"R1","paid_at":"2030-01-01T00:00:00Z"}',
};

/**
 * The behaviour every bill-payment connector shows, through the registry and the port only,
 * against its biller's sandbox. Every other listener it talks to is one it starts on 127.0.0.1.
 *
 * Retries are counted: `calls` counts every payment call the biller received, `payments` what
 * it paid. The same key twice is two calls and one payment, answered the same both times.
 */
export function billPaymentConnectorConformance(target: BillPaymentConformanceTarget): void {
  const bills = (registry = target.registry()): BillPaymentOperations =>
    registry.get(target.providerCode, 'billPayment').billPayment;
  const newKey = () => `key-${randomUUID()}`;
  const payRequest = (bill: Bill, overrides: Partial<BillPaymentRequest> = {}): BillPaymentRequest => ({
    prn: bill.prn,
    amount: bill.amount,
    currency: bill.currency,
    idempotencyKey: newKey(),
    reference: `PGTEST${randomUUID().slice(0, 8)}`,
    ...overrides,
  });
  const recorded = (request: BillPaymentRequest) => ({
    providerTransactionId: expect.any(String),
    prn: request.prn,
    amount: request.amount,
    currency: request.currency,
    reference: request.reference,
  });
  const paid = (request: BillPaymentRequest): BillPayment => ({
    ...recorded(request),
    status: 'SUCCESSFUL',
    receiptNumber: expect.any(String),
    paidAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });

  const failure = (operation: () => Promise<unknown>) => failureShowingNoSecret(operation, target.secrets);
  const refusal = async (operation: () => Promise<unknown>, status: number, code: string) => {
    const error = await failure(operation);
    expect(error).toBeInstanceOf(ProviderRequestError);
    expect(error).toMatchObject({ status, code });
  };

  /** Every operation against a stand-in, each started when the previous one is over. */
  const operations = (connector: BillPaymentOperations) => ({
    validate: () => connector.validate(target.knownBill.prn),
    pay: () => connector.pay(payRequest(target.knownBill, { reference: 'r' })),
    status: () => connector.status(newKey()),
  });

  afterEach(async () => {
    await target.injectFaults({});
  });

  it('describes a bill the biller knows', async () => {
    expect(await bills().validate(target.knownBill.prn)).toEqual({ found: true, bill: target.knownBill });
  });

  it('answers "not found" for a PRN the biller does not know, and for one that cannot be a PRN', async () => {
    const unknown = `9${randomInt(1e11, 1e12)}`;
    expect(await bills().validate(unknown)).toEqual({ found: false });
    expect(await bills().validate('../prns?x=1')).toEqual({ found: false });
  });

  it.each(['AVAILABLE', 'SUBMITTED', 'PAID', 'EXPIRED'] as const)(
    'reports a bill in status %s as such',
    async (status) => {
      const bill = await target.createBill({ status });
      expect(bill.status).toBe(status);
      expect(await bills().validate(bill.prn)).toEqual({ found: true, bill });
    },
  );

  it('reports an AVAILABLE bill past its expiry as EXPIRED, and refuses to pay it', async () => {
    const bill = await target.createBill({ expiresAt: new Date(Date.now() - 1000).toISOString() });
    expect(await bills().validate(bill.prn)).toEqual({ found: true, bill: { ...bill, status: 'EXPIRED' } });
    await refusal(() => bills().pay(payRequest(bill)), 422, 'PRN_EXPIRED');
  });

  it('pays a bill once: the payment is SUCCESSFUL with a receipt, the bill PAID, status finds it by key', async () => {
    const bill = await target.createBill();
    const request = payRequest(bill);
    const payment = await bills().pay(request);
    expect(payment).toEqual(paid(request));
    expect(await bills().validate(bill.prn)).toEqual({ found: true, bill: { ...bill, status: 'PAID' } });
    expect(await bills().status(request.idempotencyKey)).toEqual(payment);
    expect(await target.paymentCalls(bill.prn)).toEqual({ calls: 1, payments: 1 });
  });

  it('answers the same key again with the same payment: two calls counted, one payment made', async () => {
    const bill = await target.createBill();
    const request = payRequest(bill);
    const first = await bills().pay(request);
    expect(await bills().pay(request)).toEqual(first);
    expect(await target.paymentCalls(bill.prn)).toEqual({ calls: 2, payments: 1 });
  });

  it('refuses another key for a PAID bill as already paid, paying nothing more', async () => {
    const bill = await target.createBill();
    await bills().pay(payRequest(bill));
    const second = payRequest(bill);
    await refusal(() => bills().pay(second), 409, 'PRN_ALREADY_PAID');
    expect(await bills().status(second.idempotencyKey)).toEqual({ status: 'NOT_FOUND' });
    expect(await target.paymentCalls(bill.prn)).toEqual({ calls: 2, payments: 1 });
  });

  it('refuses an amount or currency other than the bill’s, an unknown PRN and a key reused for another payment', async () => {
    const bill = await target.createBill({ amount: 50_000, currency: 'UGX' });
    await refusal(() => bills().pay(payRequest(bill, { amount: 49_999 })), 422, 'AMOUNT_MISMATCH');
    await refusal(
      () => bills().pay(payRequest(bill, { currency: 'KES', amount: 5_000_000 })),
      422,
      'CURRENCY_MISMATCH',
    );
    await refusal(() => bills().pay(payRequest(bill, { prn: `8${randomInt(1e11, 1e12)}` })), 404, 'PRN_NOT_FOUND');
    expect(await target.paymentCalls(bill.prn)).toEqual({ calls: 2, payments: 0 });
    const request = payRequest(bill);
    await bills().pay(request);
    await refusal(() => bills().pay({ ...request, reference: 'another' }), 422, 'IDEMPOTENCY_KEY_REUSED');
    expect(await target.paymentCalls(bill.prn)).toEqual({ calls: 4, payments: 1 });
  });

  it('answers NOT_FOUND for a key no payment was made with', async () => {
    expect(await bills().status(newKey())).toEqual({ status: 'NOT_FOUND' });
  });

  it('shows a payment in progress as PENDING and its bill SUBMITTED, refusing a second payer meanwhile', async () => {
    const bill = await target.createBill();
    // Long enough for the checks below to run while the payment is in progress, even on a busy machine.
    await target.injectFaults({ delayMs: 3_000 });
    const request = payRequest(bill);
    const paying = bills().pay(request);
    const pending = await eventually(
      async () => {
        const current = await bills().status(request.idempotencyKey);
        return current.status === 'NOT_FOUND' ? undefined : current;
      },
      2_500,
      'the payment in progress',
    );
    expect(pending).toEqual({ ...recorded(request), status: 'PENDING' });
    expect(await bills().validate(bill.prn)).toEqual({ found: true, bill: { ...bill, status: 'SUBMITTED' } });
    await refusal(() => bills().pay(payRequest(bill)), 409, 'PRN_PAYMENT_IN_PROGRESS');
    // Without the delay, the retry still waits for the payment in progress, then answers it.
    await target.injectFaults({});
    const [payment, retried] = await Promise.all([paying, bills().pay(request)]);
    expect(payment).toEqual(paid(request));
    expect(retried).toEqual(payment);
    expect(await target.paymentCalls(bill.prn)).toEqual({ calls: 3, payments: 1 });
  });

  it('reports an injected 503 as unavailable; the retry with the same key pays once', async () => {
    const bill = await target.createBill();
    const request = payRequest(bill);
    await target.injectFaults({ failNext: 1 });
    const error = await failure(() => bills().pay(request));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error).toMatchObject({ status: 503 });
    expect(await bills().status(request.idempotencyKey)).toEqual({ status: 'NOT_FOUND' });
    expect(await bills().pay(request)).toEqual(paid(request));
    expect(await target.paymentCalls(bill.prn)).toEqual({ calls: 2, payments: 1 });
  });

  it('refuses a credential the biller did not issue, without showing it', async () => {
    const wrong = 'wrong-biller-key-4f2a9c';
    const connector = bills(target.registryWithCredential(wrong));
    for (const operation of Object.values(operations(connector))) {
      const error = await failure(operation);
      expect(error).toMatchObject({ name: 'ProviderRequestError', status: 401, code: 'UNAUTHORIZED' });
      expect(`${String(error)} ${error.stack}`).not.toContain(wrong);
    }
  });

  transportFailureConformance({
    counterpart: 'biller',
    operationsAt: (baseUrl, timeoutMs) => Object.values(operations(bills(target.registryAt(baseUrl, timeoutMs)))),
    failingWith: (status) => () => ({ status, body: '{"error":{"code":"TRY_LATER"}}' }),
    secrets: target.secrets,
  });

  const malformedCases = [
    ...MALFORMED_BODIES.flatMap((body) =>
      (['validate', 'pay', 'status'] as const).map((operation) => [operation, body] as const),
    ),
    ['validate', MISMATCHED.validate] as const,
    ['pay', MISMATCHED.pay] as const,
  ];
  it.each(malformedCases)(
    'rejects %s answered with the malformed body %j as a request error',
    async (operation, body) => {
      const malformed = await fakeProvider(() => ({ status: 200, body }));
      try {
        const error = await failure(operations(bills(target.registryAt(malformed.url, 5_000)))[operation]);
        expect(error).toBeInstanceOf(ProviderRequestError);
        expect(error.message).toMatch(/ answered HTTP 200 with a body that is not the expected answer$/);
      } finally {
        await malformed.close();
      }
    },
  );

  it('takes a 404 that is not the biller’s own "not found" for an error, not an unknown bill or payment', async () => {
    const wrongPath = await fakeProvider(() => ({ status: 404, body: '{"message":"Cannot GET /nowhere"}' }));
    try {
      for (const operation of Object.values(operations(bills(target.registryAt(wrongPath.url, 5_000))))) {
        const error = await failure(operation);
        expect(error).toMatchObject({ name: 'ProviderRequestError', status: 404, code: undefined });
      }
    } finally {
      await wrongPath.close();
    }
  });
}
