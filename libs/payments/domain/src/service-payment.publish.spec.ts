/**
 * The ServicePayment on the decider runtime (fixtures in payments-test-setup.ts). This file: the
 * integration events it publishes (each exactly once, at its transition, with everything the
 * payment.* callbacks need, accepted by its schema), how it reads events back, and the
 * consumer-side reader of the payments contract.
 */
import {
  PAYMENTS_INTEGRATION_EVENTS as PUBLISHED,
  PAYMENTS_INTEGRATION_SCHEMAS,
  PAYMENTS_PUBLICATION,
  readPaymentsIntegrationEvent,
  servicePaymentStream,
  UnsupportedEventVersionError,
  walletStream,
  type IntegrationEnvelope,
} from '@paygate/contracts';
import { SERVICE_PAYMENT_EVENT_TYPES as EVENTS } from './events';
import { fold, UnknownEventVersion, type PublishedEvent } from '@paygate/decider';
import type { ServicePaymentCommand } from './service-payment';
import { servicePaymentDecider } from './service-payment-decider';
import {
  ALREADY_PAID,
  at,
  commandsTo,
  ELIGIBLE,
  expectSchemaValid,
  open,
  PRN,
  recordEligibility,
  REF,
  retryable,
  settled,
  succeeded,
  type Situation,
} from './payments-test-setup';

/** Runs commands through the decider as the runtime would, collecting what it publishes. */
function run(commands: ServicePaymentCommand[]) {
  let state = servicePaymentDecider.initialState;
  const published: PublishedEvent[] = [];
  for (const command of commands) {
    const events = servicePaymentDecider.decide(command, state);
    state = fold(servicePaymentDecider, events, state);
    published.push(...(servicePaymentDecider.publish?.(events, state) ?? []));
  }
  return { state, published };
}

/** The whole flow to `situation`, with every command delivered twice (at-least-once delivery). */
const twice = (situation: Situation) => commandsTo(situation).flatMap((command) => [command, command]);

const record = {
  id: 7,
  merchantId: 'merchant-1',
  merchantReference: 'tax-2025-03',
  internalReference: REF,
  currency: 'UGX',
  requestAmount: 81000,
  prn: PRN,
  fee: 1215,
  transactionAmount: 81000,
  chargeCustomer: false,
  customerName: 'Jane Doe',
  serviceName: 'URA',
  livemode: false,
};

describe('what a service payment publishes', () => {
  it('a paid PRN: PrnValidated, then ServicePaymentCompleted, once each however often commands arrive', () => {
    const { published } = run([...twice('COMPLETED'), succeeded(500)]);
    expect(published.map((event) => [event.type, event.version])).toEqual([
      [PUBLISHED.prnValidated, 1],
      [PUBLISHED.completed, 1],
    ]);
    expect(published[0].data).toEqual({
      payment: {
        ...record,
        status: 'PENDING',
        statusMessage: 'PRN validated. Awaiting the collection',
        billerPaymentId: null,
      },
      validatedAt: at(5),
    });
    expect(published[1].data).toEqual({
      payment: { ...record, status: 'COMPLETED', statusMessage: 'PRN paid successfully', billerPaymentId: 'ura-pay-1' },
      completedAt: at(120),
    });
  });

  it('an ineligible PRN: PrnRejected with the reason and the whole record, for collections and payment.failed', () => {
    const { published } = run(twice('REJECTED'));
    expect(published).toEqual([
      {
        type: PUBLISHED.prnRejected,
        version: 1,
        data: {
          payment: {
            ...record,
            status: 'FAILED',
            statusMessage: 'PRN not eligible: already paid',
            billerPaymentId: null,
          },
          reasonCode: 'PRN_ALREADY_PAID',
          reason: 'already paid',
          rejectedAt: at(5),
        },
      },
    ]);
  });

  it('a refused payment: PrnValidated, then ServicePaymentFailed', () => {
    const { published } = run(twice('FAILED'));
    expect(published.map((event) => event.type)).toEqual([PUBLISHED.prnValidated, PUBLISHED.failed]);
    expect(published[1].data).toEqual({
      payment: {
        ...record,
        status: 'FAILED',
        statusMessage: 'PRN payment refused by the biller: PRN cancelled by URA',
        billerPaymentId: null,
      },
      failedAt: at(120),
    });
  });

  it('a collection that did not complete: ServicePaymentFailed only', () => {
    const { published } = run([open(), settled('CANCELLED', 60), recordEligibility(ELIGIBLE, 'HELD', 70)]);
    expect(published.map((event) => event.type)).toEqual([PUBLISHED.failed]);
    expect(published[0].data).toMatchObject({
      payment: { status: 'FAILED', statusMessage: 'PRN not paid: the collection did not complete (CANCELLED)' },
    });
  });

  it('a PrnValidated appended with the payment request still describes the validation', () => {
    const { published } = run(commandsTo('OPENED_COLLECTED').concat(recordEligibility(ELIGIBLE, 'HELD', 40)));
    expect(published).toEqual([
      {
        type: PUBLISHED.prnValidated,
        version: 1,
        data: {
          payment: expect.objectContaining({
            status: 'PENDING',
            statusMessage: 'PRN validated. Awaiting the collection',
          }),
          validatedAt: at(40),
        },
      },
    ]);
  });

  it('publishes nothing for opening, settlements, requests and retries', () => {
    const { published } = run([open(), settled('COMPLETED', 30), retryable(1)]);
    expect(published).toEqual([]);
    expect(run([open(), recordEligibility(ALREADY_PAID, 'NOT_NEEDED')]).published).toHaveLength(1);
  });

  it('publishes payloads their JSON Schemas accept, with every field the schema requires', () => {
    const all = [
      ...run(twice('COMPLETED')).published,
      ...run(twice('REJECTED')).published,
      ...run(twice('FAILED')).published,
    ];
    expect([...new Set(all.map((event) => event.type))].sort()).toEqual(Object.values(PUBLISHED).sort());
    for (const event of all) {
      expectSchemaValid(event);
      const schema = PAYMENTS_INTEGRATION_SCHEMAS[event.type as keyof typeof PAYMENTS_INTEGRATION_SCHEMAS];
      expect(Object.keys(event.data).sort()).toEqual([...(schema.required ?? [])].sort());
      // Every field the schema names, the optional livemode too (optional only for events stored before it).
      expect(Object.keys((event.data as { payment: object }).payment).sort()).toEqual(
        Object.keys(schema.properties.payment.properties).sort(),
      );
    }
  });
});

describe('streams and reading back', () => {
  it('names its streams after the internal reference; the publication covers them and no wallet', () => {
    expect(servicePaymentDecider.streamName(REF)).toBe(`service-payment-${REF}`);
    expect(servicePaymentStream(REF)).toBe(`service-payment-${REF}`);
    expect(PAYMENTS_PUBLICATION).toEqual({ context: 'payments', streamPrefixes: ['service-payment-'] });
    expect(walletStream({ merchantId: 'merchant-1', currency: 'UGX' })).toBe('wallet-merchant-1-UGX');
  });

  it('reads its own events back and nothing else; a version from the future stops the read', () => {
    expect(servicePaymentDecider.read({ type: PUBLISHED.prnValidated, data: {}, schemaVersion: 1 })).toBeUndefined();
    expect(servicePaymentDecider.read({ type: 'CollectionInitiated', data: {}, schemaVersion: 1 })).toBeUndefined();
    expect(
      servicePaymentDecider.read({ type: EVENTS.completed, data: { internalReference: 'x' }, schemaVersion: 1 }),
    ).toEqual({
      type: EVENTS.completed,
      data: { internalReference: 'x' },
    });
    expect(() => servicePaymentDecider.read({ type: EVENTS.completed, data: {}, schemaVersion: 2 })).toThrow(
      UnknownEventVersion,
    );
  });
});

describe('readPaymentsIntegrationEvent', () => {
  const envelope = (type: string, version = 1): IntegrationEnvelope => ({
    id: 'evt-1',
    type,
    version,
    data: {},
    streamName: servicePaymentStream(REF),
    revision: 3,
  });

  it('recognises the four payments events at version 1', () => {
    for (const type of Object.values(PUBLISHED))
      expect(readPaymentsIntegrationEvent(envelope(type))).toEqual(envelope(type));
  });

  it('is not about other contexts’ or domain events', () => {
    expect(readPaymentsIntegrationEvent(envelope('collections.CollectionSettled'))).toBeUndefined();
    expect(readPaymentsIntegrationEvent(envelope(EVENTS.completed))).toBeUndefined();
  });

  it('refuses a version it does not know, so an old consumer stops instead of misreading', () => {
    expect(() => readPaymentsIntegrationEvent(envelope(PUBLISHED.completed, 2))).toThrow(UnsupportedEventVersionError);
  });
});
