/**
 * livemode on what merchants and analysts see of a collection: the record (acknowledgements and
 * reads) and the published integration events say whether a live deployment opened it. A
 * collection initiated before MODE existed has no livemode in its stored event: test data.
 */
import type { CollectionCommand, CollectionState } from './collection';
import { collectionDecider } from './collection-decider';
import {
  apply,
  confirm,
  decideChecked,
  initiatedData,
  outcome,
  providerRequest,
  SUCCESS_MOMO,
} from './collection-test-setup';
import { toCollectionDetails, toCollectionRecord } from './record';

const initiate = (livemode: boolean | undefined): CollectionCommand => ({
  type: 'Initiate',
  data: initiatedData('MOBILE_MONEY', true, livemode === undefined ? {} : { livemode }),
});

/** Every integration event a completed mobile money collection publishes, step by step. */
function publishedThroughCompletion(livemode: boolean | undefined) {
  let state: CollectionState = null;
  const published = [];
  for (const command of [initiate(livemode), confirm(), providerRequest('MOBILE_MONEY'), outcome(SUCCESS_MOMO)]) {
    const events = decideChecked(command, state);
    state = events.reduce(collectionDecider.evolve, state);
    published.push(...(collectionDecider.publish?.(events, state) ?? []));
  }
  return published;
}

describe('livemode of a collection', () => {
  it.each([
    ['a live deployment', true, true],
    ['a test deployment', false, false],
    ['nobody said: initiated before MODE existed', undefined, false],
  ])('opened by %s: the record and details say livemode %s', (_by, stored, shown) => {
    const collection = apply(null, initiate(stored));
    if (!collection) throw new Error('no collection');
    expect(toCollectionRecord(collection).livemode).toBe(shown);
    expect(toCollectionDetails(collection).livemode).toBe(shown);
  });

  it.each([
    [true, true],
    [false, false],
    [undefined, false],
  ])('stored livemode %s: every published event, opened to settled, says %s', (stored, shown) => {
    const published = publishedThroughCompletion(stored);
    expect(published.map((event) => event.type)).toEqual([
      'collections.CollectionOpened',
      'collections.CollectionSettled',
    ]);
    for (const event of published) expect(event.data).toMatchObject({ collection: { livemode: shown } });
  });
});
