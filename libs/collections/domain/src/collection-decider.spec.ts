import { COLLECTION_INTEGRATION_EVENTS as PUBLISHED, COLLECTION_INTEGRATION_SCHEMAS } from '@paygate/contracts';
import { COLLECTION_EVENT_TYPES as EVENTS } from './events';
import { fold, UnknownEventVersion } from '@paygate/decider';
import type { CollectionCommand } from './collection';
import { collectionDecider } from './collection-decider';
import { at, initiatedData } from './collection-test-setup';
import { eventSchemaErrors } from '@paygate/testing';

const initiated = (requireConfirmation: boolean) => initiatedData('MOBILE_MONEY', requireConfirmation);

/** Runs commands through the decider as the runtime would, collecting what it publishes. */
function run(commands: CollectionCommand[]) {
  let state = collectionDecider.initialState;
  const published = [];
  for (const command of commands) {
    const events = collectionDecider.decide(command, state);
    state = fold(collectionDecider, events, state);
    published.push(...(collectionDecider.publish?.(events, state) ?? []));
  }
  return { state, published };
}

describe('what the collection publishes for other contexts', () => {
  const flow: CollectionCommand[] = [
    { type: 'Initiate', data: initiated(true) },
    { type: 'Confirm', at: at(10), implicit: false, providerExpiresAt: at(310) },
    { type: 'RecordProviderRequest', at: at(11), providerReference: 'ref-1' },
    { type: 'RecordProviderOutcome', at: at(40), outcome: { status: 'SUCCESSFUL', providerTransactionId: 'tx-1' } },
  ];

  it('publishes CollectionOpened on initiation and CollectionSettled once, on the final state, each with the whole record', () => {
    const { published } = run(flow);
    expect(published.map((event) => [event.type, event.version])).toEqual([
      [PUBLISHED.opened, 1],
      [PUBLISHED.settled, 1],
    ]);
    expect(published[0].data).toEqual({
      openedAt: at(0),
      collection: expect.objectContaining({
        internalReference: initiated(true).internalReference,
        status: 'PENDING',
        statusMessage: 'Transaction initiated. Pending customer confirmation',
        transactionAccount: '256772000001',
        fee: 1215,
      }),
    });
    expect(published[1].data).toEqual({
      settledAt: at(40),
      collection: expect.objectContaining({
        status: 'COMPLETED',
        statusMessage: 'Transaction completed successfully',
        totalCredit: 79785,
      }),
    });
  });

  it('publishes nothing for confirmations, prompts, or commands against a final state', () => {
    const { state } = run(flow);
    const late = collectionDecider.decide({ type: 'Expire', at: at(999), timer: 'provider' }, state);
    expect(late).toEqual([]);
    expect(collectionDecider.publish?.(late, state)).toEqual([]);
    const { published } = run(flow.slice(0, 3));
    expect(published.map((event) => event.type)).toEqual([PUBLISHED.opened]);
  });

  it('publishes payloads their JSON Schemas accept', () => {
    const { published } = run(flow);
    for (const event of published) expect(eventSchemaErrors(COLLECTION_INTEGRATION_SCHEMAS, event)).toEqual([]);
  });

  it('reads its own events back and nothing else; a version from the future stops the read', () => {
    expect(collectionDecider.read({ type: PUBLISHED.opened, data: {}, schemaVersion: 1 })).toBeUndefined();
    expect(
      collectionDecider.read({ type: EVENTS.confirmed, data: { internalReference: 'x' }, schemaVersion: 1 }),
    ).toEqual({
      type: EVENTS.confirmed,
      data: { internalReference: 'x' },
    });
    expect(() => collectionDecider.read({ type: EVENTS.confirmed, data: {}, schemaVersion: 2 })).toThrow(
      UnknownEventVersion,
    );
  });
});
