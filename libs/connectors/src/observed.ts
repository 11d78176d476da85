import { LATENCY_BUCKETS, secondsSince, type Histogram, type Metrics } from '@paygate/metrics';
import { ProviderRequestError, ProviderUnavailableError, type Connector } from './port';

export const PROVIDER_REQUESTS_METRIC = 'paygate_provider_request_duration_seconds';

/** The operations a connector performs against its provider: a fixed set, so a bounded label. */
export type ProviderOperation =
  | 'collect.initiate'
  | 'collect.status'
  | 'bill.validate'
  | 'bill.pay'
  | 'bill.status'
  | 'payout.account_holder'
  | 'payout.send'
  | 'payout.status'
  | 'refund.send'
  | 'refund.status';

/**
 * How a provider call ended: `ok`, `unavailable` (no answer, a timeout or a 5xx: worth retrying), `refused` (another
 * answer than the expected one: a 4xx or an unreadable success) or `error` (anything else, our own failure).
 */
export type ProviderCallOutcome = 'ok' | 'unavailable' | 'refused' | 'error';

function outcomeOf(error: unknown): ProviderCallOutcome {
  if (error instanceof ProviderUnavailableError) return 'unavailable';
  if (error instanceof ProviderRequestError) return 'refused';
  return 'error';
}

type Timer = Histogram<'provider' | 'operation' | 'outcome'>;

function timed<A extends unknown[], R>(
  calls: Timer,
  provider: string,
  operation: ProviderOperation,
  call: (...args: A) => Promise<R>,
): (...args: A) => Promise<R> {
  return async (...args) => {
    const started = performance.now();
    try {
      const result = await call(...args);
      calls.observe({ provider, operation, outcome: 'ok' }, secondsSince(started));
      return result;
    } catch (error) {
      calls.observe({ provider, operation, outcome: outcomeOf(error) }, secondsSince(started));
      throw error;
    }
  };
}

/**
 * `connector` as the provider `provider` (a catalogue's provider_code, so a bounded label) uses it, every call to the
 * provider timed in `paygate_provider_request_duration_seconds{provider,operation,outcome}`. What needs no request
 * (reading a notification, deriving a reference) passes straight through.
 */
export function observedConnector(connector: Connector, provider: string, metrics: Metrics): Connector {
  const calls: Timer = metrics.histogram({
    name: PROVIDER_REQUESTS_METRIC,
    help: 'Requests to payment providers and billers, by provider_code, operation and outcome (ok, unavailable: no answer or 5xx, refused: 4xx or an unreadable answer, error).',
    labelNames: ['provider', 'operation', 'outcome'],
    buckets: LATENCY_BUCKETS,
  });
  const { collect, billPayment, payout, refund } = connector;
  const providerReferenceFor = collect?.providerReferenceFor?.bind(collect);
  return {
    protocol: connector.protocol,
    collect: collect && {
      initiate: timed(calls, provider, 'collect.initiate', (request) => collect.initiate(request)),
      status: timed(calls, provider, 'collect.status', (reference) => collect.status(reference)),
      verifyNotification: (body) => collect.verifyNotification(body),
      providerReferenceFor,
    },
    billPayment: billPayment && {
      validate: timed(calls, provider, 'bill.validate', (prn) => billPayment.validate(prn)),
      pay: timed(calls, provider, 'bill.pay', (request) => billPayment.pay(request)),
      status: timed(calls, provider, 'bill.status', (key) => billPayment.status(key)),
    },
    payout: payout && {
      accountHolder: timed(calls, provider, 'payout.account_holder', (msisdn) => payout.accountHolder(msisdn)),
      send: timed(calls, provider, 'payout.send', (request) => payout.send(request)),
      status: timed(calls, provider, 'payout.status', (reference) => payout.status(reference)),
      verifyNotification: (body) => payout.verifyNotification(body),
    },
    refund: refund && {
      partial: refund.partial,
      send: timed(calls, provider, 'refund.send', (request) => refund.send(request)),
      status: timed(calls, provider, 'refund.status', (reference) => refund.status(reference)),
      verifyNotification: (body) => refund.verifyNotification(body),
    },
  };
}
