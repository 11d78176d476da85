import type { CollectionTimelineEntry } from '@paygate/contracts';
import type { CollectionEvent } from './events';

/**
 * A collection's events as a person reads them, oldest first: each one's name, the instant it
 * records and what it decided. Read from the stream, so it is what happened, not a copy of it.
 */
export function collectionTimeline(events: readonly CollectionEvent[]): CollectionTimelineEntry[] {
  return events.map(timelineEntry);
}

function timelineEntry(event: CollectionEvent): CollectionTimelineEntry {
  switch (event.type) {
    case 'CollectionInitiated': {
      const { transactionMethod, providerCode, prn } = event.data;
      const pays = prn === undefined ? '' : `, paying PRN ${prn}`;
      return {
        event: 'Collection initiated',
        at: event.data.initiatedAt,
        detail: `${transactionMethod} via ${providerCode}${pays}`,
      };
    }
    case 'PrnAccepted':
      return { event: 'PRN accepted', at: event.data.acceptedAt, detail: 'the biller can be paid' };
    case 'CollectionConfirmed':
      return {
        event: 'Collection confirmed',
        at: event.data.confirmedAt,
        detail: event.data.implicit ? 'no confirmation was asked for' : 'confirmed by the merchant',
      };
    case 'PinPromptSent':
      return {
        event: 'PIN prompt sent',
        at: event.data.sentAt,
        detail: `provider reference ${event.data.providerReference}`,
      };
    case 'CardCheckoutOpened':
      return {
        event: 'Card checkout opened',
        at: event.data.openedAt,
        detail: `provider reference ${event.data.providerReference}`,
      };
    case 'CollectionCompleted':
      return { event: 'Collection completed', at: event.data.completedAt, detail: event.data.statusMessage };
    case 'CollectionFailed':
      return {
        event: 'Collection failed',
        at: event.data.failedAt,
        detail: `${event.data.reason}: ${event.data.statusMessage}`,
      };
    case 'CollectionCancelled':
      return {
        event: 'Collection cancelled',
        at: event.data.cancelledAt,
        detail: `${event.data.reason}: ${event.data.statusMessage}`,
      };
  }
}
