import type { Logger } from '@paygate/logging';
import type { Metrics } from '@paygate/metrics';
import { isFinal, type ServicePaymentState } from '@paygate/payments-domain';

/**
 * Counts and logs a service payment that reached a final phase. A final payment decides nothing
 * more, so the events that leave it final are its last: each one is noted once.
 */
export function finishedPayments(metrics: Metrics, log: Logger): (state: ServicePaymentState) => void {
  const finished = metrics.counter({
    name: 'paygate_service_payments_finished_total',
    help: 'PRN payments that reached a final phase, by outcome (COMPLETED, FAILED, REJECTED: the PRN was not eligible).',
    labelNames: ['outcome'],
  });
  return (state) => {
    if (!isFinal(state)) return;
    finished.inc({ outcome: state.phase });
    log.info('service payment finished', { internal_reference: state.opened.internalReference, outcome: state.phase });
  };
}
