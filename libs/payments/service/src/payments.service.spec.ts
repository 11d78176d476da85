import {
  ProviderUnavailableError,
  type Bill,
  type BillPayment,
  type BillPaymentOperations,
  type BillPaymentRequest,
} from '@paygate/connectors';
import {
  COLLECTION_INTEGRATION_EVENTS,
  COLLECTION_INTEGRATION_VERSION,
  type IntegrationEnvelope,
  type PublishedCollectionV1,
} from '@paygate/contracts';
import {
  SERVICE_PAYMENT_EVENT_TYPES as EVENTS,
  servicePaymentDecider,
  walletLedgerDecider,
} from '@paygate/payments-domain';
import { DeciderRuntime, openEventStore, type EventStore } from '@paygate/event-store';
import { createLogger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import type { SqlDatabase } from '@paygate/sql';
import { describeOnAllSqlEngines, publishedCollection } from '@paygate/testing';
import { PaymentsProjection } from './payments-projection';
import { PaymentsService } from './payments.service';

/**
 * The service without NestJS: a store of each engine, the real deciders and process, a fake biller. It
 * carries the process's steps out against the ledger and the biller, in order.
 */
const PRN = '2250000123456';
const REF = 'PGSVC0000000000000000000001';
const NOW = new Date('2025-03-01T10:00:00.000Z');
const BILL: Bill = {
  prn: PRN,
  status: 'AVAILABLE',
  amount: 81_000,
  currency: 'UGX',
  expiresAt: '2025-03-31T23:59:59.000Z',
  payerName: 'Jane Doe',
  serviceName: 'URA - Domestic Tax',
} as Bill;

/** A collect-for-payment collection of PRN, the fee borne by the merchant. */
const collection = (overrides: Partial<PublishedCollectionV1> = {}): PublishedCollectionV1 =>
  publishedCollection({ internalReference: REF, requireConfirmation: false, prn: PRN, ...overrides });

let revision = 0;
const envelope = (type: string, data: object): IntegrationEnvelope => ({
  id: `e${++revision}`,
  type,
  version: COLLECTION_INTEGRATION_VERSION,
  data,
  streamName: `collection-${REF}`,
  revision,
});
const verdictRequested = () =>
  envelope(COLLECTION_INTEGRATION_EVENTS.servicePaymentRequested, {
    collection: collection(),
    requestedAt: NOW.toISOString(),
  });
const settled = () =>
  envelope(COLLECTION_INTEGRATION_EVENTS.settled, {
    collection: collection({ status: 'COMPLETED', statusMessage: 'Completed' }),
    settledAt: NOW.toISOString(),
  });

class FakeBiller implements BillPaymentOperations {
  payments: BillPaymentRequest[] = [];
  unreachable = false;
  async validate(prn: string) {
    return prn === PRN ? { found: true as const, bill: BILL } : { found: false as const };
  }
  async pay(request: BillPaymentRequest): Promise<BillPayment> {
    if (this.unreachable) throw new ProviderUnavailableError('biller', 503);
    this.payments.push(request);
    return {
      providerTransactionId: 'ura-1',
      prn: request.prn,
      amount: request.amount,
      currency: request.currency,
      reference: request.reference,
      status: 'SUCCESSFUL',
      receiptNumber: 'R-1',
      paidAt: NOW.toISOString(),
    };
  }
  async status() {
    return { status: 'NOT_FOUND' as const };
  }
}

const metrics: Metrics = {
  counter: () => ({ inc: () => undefined }),
  histogram: () => ({ observe: () => undefined }),
  gauge: () => () => undefined,
} as unknown as Metrics;

describeOnAllSqlEngines('PaymentsService (no NestJS)', 'payments_service', (open) => {
  let sql: SqlDatabase;
  let close: () => Promise<void>;
  let store: EventStore;
  let biller: FakeBiller;
  let service: PaymentsService;

  beforeEach(async () => {
    ({ db: sql, close } = await open());
    store = await openEventStore(sql);
    biller = new FakeBiller();
    const retry = { maxAttempts: 1, baseDelayMs: 1_000, maxDelayMs: 60_000 };
    const config = { biller: { code: 'ura', name: 'URA' } as never, retry, statusPollMs: 2_000, timerTickMs: 100 };
    const walletRuntime = new DeciderRuntime(store, walletLedgerDecider);
    service = new PaymentsService({
      payments: new DeciderRuntime(store, servicePaymentDecider, { oneFlowPerStream: true }),
      wallets: walletRuntime,
      projection: await PaymentsProjection.open(sql, store, 2_000),
      biller: () => biller,
      config,
      log: createLogger('payments-service-spec', 'error'),
      metrics,
      now: () => NOW,
    });
  });

  afterEach(() => close());

  const wallet = async () => (await new DeciderRuntime(store, walletLedgerDecider).load('mer_1-UGX')).state;
  const paymentEvents = async () =>
    (await new DeciderRuntime(store, servicePaymentDecider).load(REF)).events.map((event) => event.type);

  it('validates the PRN holding the fee, then pays it from the wallet once the collection completes', async () => {
    await service.topUp({ merchantId: 'mer_1', currency: 'UGX', amount: 2_000, reference: 'fund-1' });
    await service.handleCollectionEvent(verdictRequested());
    expect(await wallet()).toMatchObject({ balance: 2_000, held: 1_215 });
    await service.handleCollectionEvent(settled());
    expect(biller.payments).toEqual([expect.objectContaining({ prn: PRN, amount: 81_000, reference: REF })]);
    expect(await paymentEvents()).toEqual([
      EVENTS.opened,
      EVENTS.prnConfirmed,
      EVENTS.collectionSettled,
      EVENTS.paymentRequested,
      EVENTS.completed,
    ]);
    // 2,000 topped up + 79,785 credited − 81,000 paid; nothing left on hold.
    expect(await wallet()).toMatchObject({ balance: 785, held: 0, available: 785 });
    // A redelivered settlement pays nothing more.
    await service.handleCollectionEvent(settled());
    expect(biller.payments).toHaveLength(1);
  });

  it('gives up on a biller it cannot reach once the retry schedule is spent, and releases the holds', async () => {
    await service.topUp({ merchantId: 'mer_1', currency: 'UGX', amount: 2_000, reference: 'fund-1' });
    await service.handleCollectionEvent(verdictRequested());
    biller.unreachable = true;
    await service.handleCollectionEvent(settled());
    expect(await paymentEvents()).toEqual([
      EVENTS.opened,
      EVENTS.prnConfirmed,
      EVENTS.collectionSettled,
      EVENTS.paymentRequested,
      EVENTS.failed,
    ]);
    expect(await wallet()).toMatchObject({ balance: 81_785, held: 0, available: 81_785 });
  });

  it('refuses an invalid top-up through the wallet ledger, naming the fields', async () => {
    await expect(
      service.topUp({ merchantId: 'mer_1', currency: 'XXX', amount: 1.5, reference: 'bad' }),
    ).rejects.toMatchObject({
      code: 'invalid_request',
      details: {
        errors: [expect.objectContaining({ field: 'currency' }), expect.objectContaining({ field: 'amount' })],
      },
    });
  });
});
