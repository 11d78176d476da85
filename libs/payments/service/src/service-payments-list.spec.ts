import { compareReadModels, rebuildReadModels } from '@paygate/analytics';
import { ListServicePayments, SERVICE_PAYMENT_STREAM_PREFIX, type ServicePaymentListing } from '@paygate/contracts';
import { DeciderRuntime, SqlEventStore, type EventStore } from '@paygate/event-store';
import { JOBS_MIGRATIONS } from '@paygate/jobs';
import { servicePaymentDecider, type ServicePayment } from '@paygate/payments-domain';
import { migrate, type SqlDatabase } from '@paygate/sql';
import {
  describeOnAllSqlEngines,
  describeOnSqlEngines,
  publishedCollection,
  type SqlEngineUnderTest,
} from '@paygate/testing';
import { ListServicePaymentsHandler } from './handlers/payment-handlers';
import { PAYMENTS_MIGRATIONS } from './migrations';
import { PaymentsProjection, toServicePaymentSummary } from './payments-projection';
import { PAYMENTS_READ_MODEL } from './read-model';
import type { PaymentsService } from './payments.service';

const PRN = '2250000123456';
const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 10, minute)).toISOString();
const paymentRuntime = (store: EventStore) => new DeciderRuntime(store, servicePaymentDecider);

/** A database of `open`'s engine for each test, with a store and the service payments' runtime on it. */
function perTest(open: () => Promise<SqlEngineUnderTest>) {
  const t = {} as { db: SqlDatabase; store: EventStore; payments: ReturnType<typeof paymentRuntime> };
  let close: () => Promise<void>;
  beforeEach(async () => {
    ({ db: t.db, close } = await open());
    t.store = await SqlEventStore.create(t.db);
    t.payments = paymentRuntime(t.store);
  });
  afterEach(() => close());

  /** A service payment of `merchantId` opened at `openedAt` (its ServicePaymentOpened). */
  const openPayment = (merchantId: string, internalReference: string, openedAt: string) =>
    t.payments.handle(internalReference, {
      type: 'Open',
      collection: publishedCollection({ merchantId, internalReference, prn: PRN }),
      prn: PRN,
      serviceName: 'URA - Domestic Tax',
      at: openedAt,
    });

  /** Applies every service payment event appended so far, as the projection's subscription would. */
  const project = async (projection: PaymentsProjection) =>
    projection.applyPage(await t.store.readAll({ streamPrefixes: [SERVICE_PAYMENT_STREAM_PREFIX] }));

  return { t, openPayment, project };
}

/** The query as the gateway sends it: through the handler, which hands it to the use case. */
const list = (projection: PaymentsProjection, payload: ListServicePayments['payload']) =>
  new ListServicePaymentsHandler({
    listServicePayments: (query) => projection.listServicePayments(query),
  } as Pick<PaymentsService, 'listServicePayments'> as PaymentsService).execute(new ListServicePayments(payload));

const references = (listed: ServicePaymentListing[]) => listed.map((payment) => payment.internalReference);

/**
 * payments.listServicePayments: a merchant's service payments from service_payment_view, newest first by the instant
 * each opened, a page at a time.
 */
describeOnAllSqlEngines('payments.listServicePayments', 'payments_list', (open) => {
  const { t, openPayment, project } = perTest(open);

  it("lists the merchant's payments newest first, with their summary and instants, and never another merchant's", async () => {
    const projection = await PaymentsProjection.open(t.db, t.store, 2_000);
    await openPayment('mer_a', 'PGSVC-A1', at(1));
    await openPayment('mer_b', 'PGSVC-B1', at(2));
    await openPayment('mer_a', 'PGSVC-A3', at(3));
    await openPayment('mer_a', 'PGSVC-A2', at(2));
    await openPayment('mer_b', 'PGSVC-B9', at(9));
    // A later event changes the payment but not when it opened.
    await t.payments.handle('PGSVC-A1', {
      type: 'DeferValidation',
      attempt: 1,
      reason: 'biller unreachable',
      nextAttemptAt: at(30),
      at: at(20),
    });
    await project(projection);

    const page = await list(projection, { merchantId: 'mer_a', limit: 10 });

    expect(references(page.payments)).toEqual(['PGSVC-A3', 'PGSVC-A2', 'PGSVC-A1']);
    expect(page.next).toBeUndefined();
    expect(page.payments[2]).toEqual({
      prn: PRN,
      status: 'PENDING',
      statusMessage: expect.any(String),
      serviceName: 'URA - Domestic Tax',
      amount: expect.any(Number),
      currency: 'UGX',
      billerPaymentId: null,
      internalReference: 'PGSVC-A1',
      openedAt: at(1),
      updatedAt: at(20),
    });
    expect(references((await list(projection, { merchantId: 'mer_b', limit: 10 })).payments)).toEqual([
      'PGSVC-B9',
      'PGSVC-B1',
    ]);
    expect(await list(projection, { merchantId: 'mer_none', limit: 10 })).toEqual({ payments: [] });
  });

  it('pages with `after`: each page takes up where the last ended, with no overlap, ties broken by reference', async () => {
    const projection = await PaymentsProjection.open(t.db, t.store, 2_000);
    // Three opened in the same instant, so a page boundary falls inside the tie.
    for (const [reference, minute] of [
      ['PGSVC-01', 1],
      ['PGSVC-02', 5],
      ['PGSVC-03', 5],
      ['PGSVC-04', 5],
      ['PGSVC-05', 7],
    ] as const)
      await openPayment('mer_a', reference, at(minute));
    await openPayment('mer_b', 'PGSVC-06', at(6));
    await project(projection);

    const first = await list(projection, { merchantId: 'mer_a', limit: 2 });
    expect(references(first.payments)).toEqual(['PGSVC-05', 'PGSVC-04']);
    expect(first.next).toEqual({ openedAt: at(5), internalReference: 'PGSVC-04' });

    const second = await list(projection, { merchantId: 'mer_a', limit: 2, after: first.next });
    expect(references(second.payments)).toEqual(['PGSVC-03', 'PGSVC-02']);
    expect(second.next).toEqual({ openedAt: at(5), internalReference: 'PGSVC-02' });

    const last = await list(projection, { merchantId: 'mer_a', limit: 2, after: second.next });
    expect(references(last.payments)).toEqual(['PGSVC-01']);
    expect(last.next).toBeUndefined();

    // A payment opened after the first page was read does not shift the pages after it.
    await openPayment('mer_a', 'PGSVC-07', at(8));
    await project(projection);
    expect(references((await list(projection, { merchantId: 'mer_a', limit: 2, after: first.next })).payments)).toEqual(
      ['PGSVC-03', 'PGSVC-02'],
    );
  });
});

/** The upgrade from release 0003, whose databases were PGlite's or PostgreSQL's. */
describeOnSqlEngines('payments/0004_service_payments_by_opening', 'payments_0004', (open) => {
  const { t, openPayment, project } = perTest(open);

  it('fills opened_at of the rows an earlier release wrote from their state, as a rebuild from the events does', async () => {
    // The schema as release 0003 left it, with a row written then (no opened_at column).
    await migrate(t.db, [...JOBS_MIGRATIONS, ...PAYMENTS_MIGRATIONS.slice(0, 3)]);
    await openPayment('mer_a', 'PGSVC-OLD', at(4));
    const state = (await t.payments.load('PGSVC-OLD')).state as ServicePayment;
    await t.db.query(
      `insert into service_payment_view (internal_reference, merchant_id, summary, state, revision)
       values ($1, $2, $3::jsonb, $4::jsonb, 0)`,
      ['PGSVC-OLD', 'mer_a', JSON.stringify(toServicePaymentSummary(state)), JSON.stringify(state)],
    );

    const projection = await PaymentsProjection.open(t.db, t.store, 2_000);
    await openPayment('mer_a', 'PGSVC-NEW', at(6));
    await project(projection);

    const [old] = await t.db.query<{ opened_at: Date }>(
      'select opened_at from service_payment_view where internal_reference = $1',
      ['PGSVC-OLD'],
    );
    expect(new Date(old.opened_at).toISOString()).toBe(at(4));
    const { payments: listed } = await list(projection, { merchantId: 'mer_a', limit: 10 });
    expect(listed.map(({ internalReference, openedAt }) => [internalReference, openedAt])).toEqual([
      ['PGSVC-NEW', at(6)],
      ['PGSVC-OLD', at(4)],
    ]);

    // `paygate projections rebuild --verify`: the rebuilt view, opened_at included, equals the migrated live one.
    const rebuilt = await open();
    try {
      await rebuildReadModels(t.store, rebuilt.db, [PAYMENTS_READ_MODEL]);
      const view = (await compareReadModels(t.db, rebuilt.db, [PAYMENTS_READ_MODEL])).find(
        (table) => table.table === 'service_payment_view',
      );
      expect(view).toEqual({ table: 'service_payment_view', liveRows: 2, rebuiltRows: 2, differences: [] });
    } finally {
      await rebuilt.close();
    }
  });
});
