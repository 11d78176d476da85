/**
 * The collection process (setup in collection-process-test-setup.ts). This file: a provider's
 * callback, which only says when to ask: the provider's status API is asked, by the reference
 * the provider knows the collection by.
 */
import type { CollectionEvent } from './events';
import { fixedReference, given, outline } from './collection-process-test-setup';
import { at, eventsOf, eventsTo, initiatedData, METHODS, SUCCESS_MOMO, type Situation } from './collection-test-setup';

const calledBack = (referenceHint?: string) => ({ type: 'ProviderCalledBack', referenceHint }) as const;
const PENDING = { status: 'PENDING' } as const;

describe('a provider callback', () => {
  it('asks the provider by the reference it answered the request with, not the hint the callback names', async () => {
    const run = await given(eventsTo('CARD', 'WITH_PROVIDER')).when(calledBack('forged-ref'), at(100), {
      status: [PENDING],
    });
    expect(run.outputs).toEqual([
      // sess_123: the reference the card provider answered the request with (collection-test-setup.ts).
      { type: 'Call', call: { type: 'QueryProvider', providerCode: 'card_ug', reference: 'sess_123' } },
      { type: 'Done' },
    ]);
  });

  it('before the answer is recorded, asks by the reference ours fixes where the protocol has one (MoMo)', async () => {
    const [query] = (
      await given(eventsTo('MOBILE_MONEY', 'AWAITING_PROVIDER')).when(calledBack('hint-ref'), at(100), {
        status: [PENDING],
      })
    ).outputs;
    const reference = fixedReference(initiatedData('MOBILE_MONEY').internalReference);
    expect(query).toEqual({ type: 'Call', call: { type: 'QueryProvider', providerCode: 'mtn_momo_ug', reference } });
  });

  it('before the answer is recorded, and with no reference fixed by ours (card), asks by the hint', async () => {
    const [query] = (
      await given(eventsTo('CARD', 'AWAITING_PROVIDER')).when(calledBack('hint-ref'), at(100), { status: [PENDING] })
    ).outputs;
    expect(query).toEqual({
      type: 'Call',
      call: { type: 'QueryProvider', providerCode: 'card_ug', reference: 'hint-ref' },
    });
    expect((await given(eventsTo('CARD', 'AWAITING_PROVIDER')).when(calledBack(), at(100))).outputs).toEqual([
      { type: 'Done' },
    ]);
  });

  it.each(METHODS)('records the result the provider gives (%s)', async (method) => {
    const run = await given(eventsTo(method, 'WITH_PROVIDER')).when(calledBack(), at(100), {
      status: [{ status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'LOW' }],
    });
    expect(outline(run.outputs)).toEqual(['Call QueryProvider', 'Execute RecordProviderOutcome', 'Done']);
    expect(run.outputs[1]).toEqual({
      type: 'Execute',
      command: {
        type: 'RecordProviderOutcome',
        at: at(100),
        outcome: { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'LOW' },
      },
    });
    expect(run.collection).toMatchObject({ status: 'FAILED' });
  });

  it('fails when the provider cannot be reached, so the provider calls back again', async () => {
    const run = await given(eventsTo('MOBILE_MONEY', 'WITH_PROVIDER')).when(calledBack(), at(100), {
      status: ['unreachable'],
    });
    expect(outline(run.outputs)).toEqual(['Call QueryProvider', 'Fail']);
  });

  const notWithProvider: Array<[string, () => CollectionEvent[]]> = [
    ['awaiting confirmation', () => eventsTo('MOBILE_MONEY', 'AWAITING_CONFIRMATION')],
    [
      'waiting for its PRN verdict',
      () => eventsOf({ type: 'Initiate', data: initiatedData('MOBILE_MONEY', true, { prn: '2250000001301' }) }),
    ],
    ...(['COMPLETED', 'FAILED', 'CANCELLED'] as Situation[]).map((situation): [string, () => CollectionEvent[]] => [
      situation,
      () => eventsTo('MOBILE_MONEY', situation),
    ]),
    ['unknown', () => []],
  ];

  it.each(notWithProvider)('about a collection %s asks nothing and records nothing', async (_name, history) => {
    const run = await given(history()).when(calledBack('hint-ref'), at(100), { status: [SUCCESS_MOMO] });
    expect({ outputs: run.outputs, events: run.events }).toEqual({ outputs: [{ type: 'Done' }], events: [] });
  });
});
