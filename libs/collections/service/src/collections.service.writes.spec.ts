/**
 * The collections service without NestJS (setup in collections-service-test-setup.ts). This file:
 * what opening a collection writes, and what an outage half-way leaves. With the SQL event store
 * the merchant_reference reservation and the first events are one transaction; with KurrentDB
 * (no SQL transaction) they are two steps, and a failed second step frees the reference.
 */
import { MESSAGES, COLLECTION_EVENT_TYPES as EVENTS } from '@paygate/collections-domain';
import { UnavailableError, type CollectionRecord, type CollectionRequest } from '@paygate/contracts';
import type { EventStore } from '@paygate/event-store';
import type { SqlEventStore } from '@paygate/event-store';
import { describeOnAllSqlEngines } from '@paygate/testing';
import {
  harnessPerSuite,
  internalReferenceOf,
  MERCHANT,
  momoRequest,
  type Harness,
} from './collections-service-test-setup';

/** Counts what reaches the store and fails, as an outage would, every append that carries `failing`. */
class StoreProbe {
  streamReads = 0;
  appends = 0;
  transactions = 0;
  failing?: string;

  constructor(private readonly sqlTransactions: boolean) {}

  /** What reached the store since `before` (a copy of the probe taken earlier): [transactions, appends, reads]. */
  since(before: Pick<StoreProbe, 'transactions' | 'appends' | 'streamReads'>): number[] {
    return [
      this.transactions - before.transactions,
      this.appends - before.appends,
      this.streamReads - before.streamReads,
    ];
  }

  wrap = (store: SqlEventStore): EventStore => {
    const failable =
      (append: EventStore['appendToStream']): EventStore['appendToStream'] =>
      async (streamName, events, options) => {
        if (events.some((event) => event.type === this.failing))
          throw new UnavailableError('the database is not reachable');
        return append(streamName, events, options);
      };
    return Object.assign(Object.create(store) as EventStore, {
      readStream: (streamName: string, options?: { fromRevision?: number; maxCount?: number }) => {
        this.streamReads++;
        return store.readStream(streamName, options);
      },
      appendToStream: failable((streamName, events, options) => {
        this.appends++;
        return store.appendToStream(streamName, events, options);
      }),
      transaction: this.sqlTransactions
        ? <T>(work: Parameters<SqlEventStore['transaction']>[0]) => {
            this.transactions++;
            return store.transaction((tx) =>
              work({ sql: tx.sql, appendToStream: failable(tx.appendToStream) }),
            ) as Promise<T>;
          }
        : undefined,
    });
  };
}

/** A MoMo collection under way: initiated, confirmed (implicitly or by the merchant), the customer prompted. */
const PROMPTED = [EVENTS.initiated, EVENTS.confirmed, EVENTS.pinPromptSent];
/** Opens `request` while `failing` cannot be written: a 503, and its merchant_reference finds nothing. */
async function failOpeningLeavingNothing(h: Harness, probe: StoreProbe, request: CollectionRequest, failing: string) {
  probe.failing = failing;
  await expect(h.service.initialize({ merchantId: MERCHANT, request })).rejects.toBeInstanceOf(UnavailableError);
  await expect(
    h.service.queries.find({ merchantId: MERCHANT, merchantReference: request.merchant_reference }),
  ).rejects.toMatchObject({ code: 'not_found' });
  probe.failing = undefined;
}

/** The suite's harness on a store the probe counts; before each test no append fails. */
function probedHarness(sqlTransactions: boolean) {
  const probe = new StoreProbe(sqlTransactions);
  const h = harnessPerSuite({ eventStore: probe.wrap });
  beforeEach(() => {
    probe.failing = undefined;
  });
  return { probe, h };
}

const recordOf = (acknowledgement: { data: unknown }) => acknowledgement.data as CollectionRecord;

describe('CollectionsService: what opening writes, on the SQL event store', () => {
  const { probe, h } = probedHarness(true);

  it('initialize with confirmation is one transaction and reads no stream', async () => {
    const before = { ...probe };
    const acknowledgement = await h.service.initialize({
      merchantId: MERCHANT,
      request: momoRequest({ require_confirmation: true }),
    });
    expect(acknowledgement.message).toBe(MESSAGES.initiatedAwaitingConfirmation);
    expect(probe.since(before)).toEqual([1, 0, 0]);
  });

  it('initialize without confirmation records the implicit confirmation in that transaction, then only what the provider answered', async () => {
    const before = { ...probe };
    const acknowledgement = await h.service.initialize({ merchantId: MERCHANT, request: momoRequest() });
    expect(recordOf(acknowledgement).status_message).toBe(MESSAGES.promptSent);
    expect(probe.since(before)).toEqual([1, 1, 0]);
    expect(await h.eventTypes(internalReferenceOf(acknowledgement))).toEqual(PROMPTED);
  });

  it('confirm reads the collection once, then writes the confirmation and what the provider answered', async () => {
    const opened = await h.service.initialize({
      merchantId: MERCHANT,
      request: momoRequest({ require_confirmation: true }),
    });
    const before = { ...probe };
    await h.service.confirm({ merchantId: MERCHANT, internalReference: internalReferenceOf(opened) });
    expect(probe.since(before)).toEqual([0, 2, 1]);
    expect(await h.eventTypes(internalReferenceOf(opened))).toEqual(PROMPTED);
  });

  it('an outage while opening leaves nothing: the merchant_reference stays free and the same request succeeds later', async () => {
    const request = momoRequest();
    await failOpeningLeavingNothing(h, probe, request, EVENTS.confirmed);

    const acknowledgement = await h.service.initialize({ merchantId: MERCHANT, request });
    expect(await h.eventTypes(internalReferenceOf(acknowledgement))).toEqual(PROMPTED);
  });

  it('an outage after the opening fails the initialize with 503; the retry acknowledges the collection the status timer will take on', async () => {
    const request = momoRequest();
    const asked = h.momo.requests.length;
    probe.failing = EVENTS.pinPromptSent;
    await expect(h.service.initialize({ merchantId: MERCHANT, request })).rejects.toBeInstanceOf(UnavailableError);
    expect(h.momo.requests).toHaveLength(asked + 1);

    probe.failing = undefined;
    const acknowledgement = await h.service.initialize({ merchantId: MERCHANT, request });
    expect(recordOf(acknowledgement)).toMatchObject({
      transaction_status: 'PENDING',
      status_message: MESSAGES.initiatedProcessing,
    });
    expect(await h.eventTypes(internalReferenceOf(acknowledgement))).toEqual([EVENTS.initiated, EVENTS.confirmed]);
  });
});

describe('CollectionsService: what opening writes, without SQL transactions (KurrentDB)', () => {
  const { probe, h } = probedHarness(false);

  it('opens in two steps: a retry replays the acknowledgement, a reused reference with another body is refused', async () => {
    const request = momoRequest();
    const first = await h.service.initialize({ merchantId: MERCHANT, request });
    expect(await h.eventTypes(internalReferenceOf(first))).toEqual(PROMPTED);
    expect(await h.service.initialize({ merchantId: MERCHANT, request })).toEqual(first);
    await expect(
      h.service.initialize({ merchantId: MERCHANT, request: { ...request, amount: 90000 } }),
    ).rejects.toMatchObject({ code: 'duplicate_reference' });
    expect(probe.transactions).toBe(0);
  });

  it('a first append that fails frees the merchant_reference again', async () => {
    const request = momoRequest();
    await failOpeningLeavingNothing(h, probe, request, EVENTS.initiated);
    expect(recordOf(await h.service.initialize({ merchantId: MERCHANT, request })).merchant_reference).toBe(
      request.merchant_reference,
    );
  });

  it('an outage at the implicit confirmation fails the initialize with 503, and the retry starts the collection', async () => {
    const request = momoRequest();
    const asked = h.momo.requests.length;
    probe.failing = EVENTS.confirmed;
    await expect(h.service.initialize({ merchantId: MERCHANT, request })).rejects.toBeInstanceOf(UnavailableError);
    expect(h.momo.requests).toHaveLength(asked);

    probe.failing = undefined;
    const acknowledgement = await h.service.initialize({ merchantId: MERCHANT, request });
    expect(recordOf(acknowledgement).status_message).toBe(MESSAGES.promptSent);
    expect(await h.eventTypes(internalReferenceOf(acknowledgement))).toEqual(PROMPTED);
    expect(h.momo.requests).toHaveLength(asked + 1);
  });
});

describeOnAllSqlEngines('CollectionsService: one merchant_reference at once', 'coll_race', (engine) => {
  const h = harnessPerSuite({ engine });

  it('the same request five times at once makes one collection and five identical acknowledgements', async () => {
    const request = momoRequest({ require_confirmation: true });
    const answers = await Promise.all(
      [1, 2, 3, 4, 5].map(() => h.service.initialize({ merchantId: MERCHANT, request })),
    );
    expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
    expect(await h.eventTypes(internalReferenceOf(answers[0]))).toEqual([EVENTS.initiated]);
  });

  it('different requests with one merchant_reference at once: one is accepted, the others refused', async () => {
    const request = momoRequest({ require_confirmation: true });
    const outcomes = await Promise.allSettled(
      [81000, 82000, 83000].map((amount) =>
        h.service.initialize({ merchantId: MERCHANT, request: { ...request, amount } }),
      ),
    );
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const refusals = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(refusals.map((refusal) => (refusal.reason as { code?: string }).code)).toEqual([
      'duplicate_reference',
      'duplicate_reference',
    ]);
  });
});
