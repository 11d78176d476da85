/**
 * The collection process (setup in collection-process-test-setup.ts). This file: a provider's
 * callback, which only says when to ask: the provider's status API is asked, by the reference
 * the provider knows the collection by.
 */
import type { Collection } from './collection';
import { fixedReference, outline, runProcess } from './collection-process-test-setup';
import { apply, at, initiatedData, METHODS, stateIn, SUCCESS_MOMO, type Situation } from './collection-test-setup';

const calledBack = (referenceHint?: string) => ({ type: 'ProviderCalledBack', referenceHint }) as const;
const PENDING = { status: 'PENDING' } as const;

describe('a provider callback', () => {
  it('asks the provider by the reference it answered the request with, not the hint the callback names', async () => {
    const collection = stateIn('CARD', 'WITH_PROVIDER');
    const run = await runProcess(calledBack('forged-ref'), collection, at(100), { status: [PENDING] });
    expect(run.actions).toEqual([{ type: 'QueryProvider', providerCode: 'card_ug', reference: collection.providerReference }, { type: 'Done' }]);
  });

  it('before the answer is recorded, asks by the reference ours fixes where the protocol has one (MoMo)', async () => {
    const collection = stateIn('MOBILE_MONEY', 'AWAITING_PROVIDER');
    const [query] = (await runProcess(calledBack('hint-ref'), collection, at(100), { status: [PENDING] })).actions;
    expect(query).toEqual({ type: 'QueryProvider', providerCode: 'mtn_momo_ug', reference: fixedReference(collection.initiated.internalReference) });
  });

  it('before the answer is recorded, and with no reference fixed by ours (card), asks by the hint', async () => {
    const [query] = (await runProcess(calledBack('hint-ref'), stateIn('CARD', 'AWAITING_PROVIDER'), at(100), { status: [PENDING] })).actions;
    expect(query).toEqual({ type: 'QueryProvider', providerCode: 'card_ug', reference: 'hint-ref' });
    expect((await runProcess(calledBack(), stateIn('CARD', 'AWAITING_PROVIDER'), at(100))).actions).toEqual([{ type: 'Done' }]);
  });

  it.each(METHODS)('records the result the provider gives (%s)', async (method) => {
    const run = await runProcess(calledBack(), stateIn(method, 'WITH_PROVIDER'), at(100), {
      status: [{ status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'LOW' }],
    });
    expect(outline(run)).toEqual(['QueryProvider', 'Execute RecordProviderOutcome', 'Done']);
    expect(run.actions[1]).toEqual({
      type: 'Execute',
      command: { type: 'RecordProviderOutcome', at: at(100), outcome: { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'LOW' } },
    });
    expect(run.collection).toMatchObject({ status: 'FAILED' });
  });

  it('fails when the provider cannot be reached, so the provider calls back again', async () => {
    expect(outline(await runProcess(calledBack(), stateIn('MOBILE_MONEY', 'WITH_PROVIDER'), at(100), { status: ['unreachable'] }))).toEqual([
      'QueryProvider',
      'Fail',
    ]);
  });

  const notWithProvider: Array<[string, () => Collection | null]> = [
    ['awaiting confirmation', () => stateIn('MOBILE_MONEY', 'AWAITING_CONFIRMATION')],
    ['waiting for its PRN verdict', () => apply(null, { type: 'Initiate', data: initiatedData('MOBILE_MONEY', true, { prn: '2250000001301' }) })],
    ...(['COMPLETED', 'FAILED', 'CANCELLED'] as Situation[]).map((situation): [string, () => Collection] => [
      situation,
      () => stateIn('MOBILE_MONEY', situation),
    ]),
    ['unknown', () => null],
  ];

  it.each(notWithProvider)('about a collection %s asks nothing', async (_name, collection) => {
    expect((await runProcess(calledBack('hint-ref'), collection(), at(100), { status: [SUCCESS_MOMO] })).actions).toEqual([{ type: 'Done' }]);
  });
});
