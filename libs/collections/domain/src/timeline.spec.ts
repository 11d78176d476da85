import type { CollectionEvent } from './events';
import { collectionTimeline } from './timeline';
import { at, confirm, decideChecked, initiate, outcome, providerRequest, SUCCESS_MOMO } from './collection-test-setup';
import { evolve, type CollectionCommand, type CollectionState } from './collection';

function eventsOf(commands: CollectionCommand[]): CollectionEvent[] {
  const events: CollectionEvent[] = [];
  let state: CollectionState = null;
  for (const command of commands) {
    const decided = decideChecked(command, state);
    events.push(...decided);
    state = decided.reduce(evolve, state);
  }
  return events;
}

describe('a collection timeline', () => {
  it('names each event of a completed mobile money collection with the instant it records, oldest first', () => {
    const timeline = collectionTimeline(
      eventsOf([
        initiate('MOBILE_MONEY'),
        confirm(60),
        providerRequest('MOBILE_MONEY', 61),
        outcome(SUCCESS_MOMO, 120),
      ]),
    );
    expect(timeline.map(({ event, at: when }) => [event, when])).toEqual([
      ['Collection initiated', at(0)],
      ['Collection confirmed', at(60)],
      ['PIN prompt sent', at(61)],
      ['Collection completed', at(120)],
    ]);
    expect(timeline[0].detail).toBe('MOBILE_MONEY via mtn_momo_ug');
    expect(timeline[1].detail).toBe('confirmed by the merchant');
  });

  it('says why a collection failed', () => {
    const timeline = collectionTimeline(
      eventsOf([
        initiate('MOBILE_MONEY', false),
        confirm(0, true),
        providerRequest('MOBILE_MONEY', 1),
        outcome({ status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'LOW' }, 30),
      ]),
    );
    expect(timeline.at(-1)).toMatchObject({ event: 'Collection failed', at: at(30) });
    expect(timeline.at(-1)?.detail).toMatch(/^INSUFFICIENT_FUNDS: /);
    expect(timeline[1].detail).toBe('no confirmation was asked for');
  });
});
