/**
 * The collection's timer table: what each event does to its durable timers (the projection
 * applies the changes in the event's own transaction).
 */
import { COLLECTION_EVENT_TYPES as EVENTS, type CollectionEvent } from './events';
import { timerChanges } from './collection-process';
import { at, CONFIRMATION_DEADLINE, initiatedData, PROVIDER_DEADLINE } from './collection-test-setup';

const POLL_MS = 5_000;
const ref = initiatedData('MOBILE_MONEY').internalReference;

describe('the collection timer table', () => {
  it('given a collection that needs confirmation (or a PRN verdict), when it is initiated, then its confirmation deadline is scheduled', async () => {
    const event: CollectionEvent = { type: EVENTS.initiated, data: initiatedData('MOBILE_MONEY', true) };
    expect(event.data.confirmationExpiresAt).toBe(CONFIRMATION_DEADLINE);
    expect(timerChanges(event, POLL_MS)).toEqual([
      { type: 'Schedule', kind: 'confirmation', at: CONFIRMATION_DEADLINE },
    ]);
  });

  it('given a collection with no deadline, when it is initiated, then no timer starts', async () => {
    const event: CollectionEvent = {
      type: EVENTS.initiated,
      data: initiatedData('CARD', false, { confirmationExpiresAt: undefined }),
    };
    expect(timerChanges(event, POLL_MS)).toEqual([]);
  });

  it('when it is confirmed, then the confirmation deadline gives way to the provider deadline and the first status poll one interval later', async () => {
    const event: CollectionEvent = {
      type: EVENTS.confirmed,
      data: { internalReference: ref, confirmedAt: at(10), implicit: false, providerExpiresAt: PROVIDER_DEADLINE },
    };
    expect(timerChanges(event, POLL_MS)).toEqual([
      { type: 'Cancel', kinds: ['confirmation'] },
      { type: 'Schedule', kind: 'provider', at: PROVIDER_DEADLINE },
      { type: 'Schedule', kind: 'status', at: at(15) },
    ]);
  });

  it.each([EVENTS.completed, EVENTS.failed, EVENTS.cancelled])(
    'when it becomes final (%s), then every timer of the collection is cancelled',
    async (type) => {
      expect(timerChanges({ type, data: {} } as unknown as CollectionEvent, POLL_MS)).toEqual([{ type: 'Cancel' }]);
    },
  );

  it.each([EVENTS.pinPromptSent, EVENTS.cardCheckoutOpened, EVENTS.prnAccepted])(
    'when %s is recorded, then the timers stay as they are',
    async (type) => {
      expect(timerChanges({ type, data: {} } as unknown as CollectionEvent, POLL_MS)).toEqual([]);
    },
  );
});
