import type { CollectionState } from '@paygate/collections-domain';
import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';

/**
 * Counts and logs a collection that reached a final state. A final collection decides nothing
 * more, so the events that leave it final are its last: each one is noted once.
 */
export function finishedCollections(metrics: Metrics, log: Logger): (state: CollectionState) => void {
  const finished = metrics.counter({
    name: 'paygate_collections_finished_total',
    help: 'Collections that reached a final state, by status (COMPLETED, FAILED, CANCELLED), transaction method and provider_code.',
    labelNames: ['status', 'method', 'provider'],
  });
  return (state) => {
    if (state?.phase !== 'FINAL') return;
    const { internalReference, transactionMethod: method, providerCode: provider } = state.initiated;
    finished.inc({ status: state.status, method, provider });
    log.info('collection finished', { internal_reference: internalReference, status: state.status, method });
  };
}
