import { toMajorUnits } from '@paygate/money';
import { callProvider } from '../http';
import { isRecord, plainCode } from '../json';
import {
  ProviderRequestError,
  type BillPayment,
  type BillPaymentOperations,
  type BillPaymentRequest,
  type BillValidation,
  type Connector,
} from '../port';
import { billFrom, paymentFrom } from './biller-protocol';

const PROVIDER = 'biller';

export interface BillerConnectorConfig {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
}

/** The biller's error body is `{error: {code, message}}`; only a plain code is carried. */
function errorCode(body: unknown): string | undefined {
  return isRecord(body) && isRecord(body.error) ? plainCode(body.error.code) : undefined;
}

function rejected(status: number, body: unknown): ProviderRequestError {
  return new ProviderRequestError(PROVIDER, status, errorCode(body));
}

/** The biller's PRN API (or the sandbox biller speaking it) over HTTP, authenticated by an API key. */
class BillerPayments implements BillPaymentOperations {
  constructor(private readonly config: BillerConnectorConfig) {}

  async validate(prn: string): Promise<BillValidation> {
    const { status, body } = await this.call('GET', `/v1/prns/${encodeURIComponent(prn)}`);
    // Only the biller's own "no such PRN" is an answer: a bare 404 is a wrong URL, not an unknown bill.
    if (status === 404 && errorCode(body) === 'PRN_NOT_FOUND') return { found: false };
    const bill = status === 200 ? billFrom(body) : undefined;
    if (!bill || bill.prn !== prn) throw rejected(status, body);
    return { found: true, bill };
  }

  async pay(request: BillPaymentRequest): Promise<BillPayment> {
    const { status, body } = await this.call('POST', `/v1/prns/${encodeURIComponent(request.prn)}/payments`, {
      headers: { 'idempotency-key': request.idempotencyKey },
      body: {
        amount: toMajorUnits(request.amount, request.currency),
        currency: request.currency,
        reference: request.reference,
      },
    });
    const payment = status >= 200 && status < 300 ? paymentFrom(body) : undefined;
    // A payment of something else than what was asked for is no answer to this request.
    const matches =
      payment &&
      payment.prn === request.prn &&
      payment.amount === request.amount &&
      payment.currency === request.currency &&
      payment.reference === request.reference;
    if (!payment || !matches) throw rejected(status, body);
    return payment;
  }

  async status(idempotencyKey: string): Promise<BillPayment | { status: 'NOT_FOUND' }> {
    const { status, body } = await this.call('GET', `/v1/payments/${encodeURIComponent(idempotencyKey)}`);
    if (status === 404 && errorCode(body) === 'PAYMENT_NOT_FOUND') return { status: 'NOT_FOUND' };
    const payment = status === 200 ? paymentFrom(body) : undefined;
    if (!payment) throw rejected(status, body);
    return payment;
  }

  private call(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; body?: Record<string, unknown> } = {},
  ) {
    return callProvider(
      PROVIDER,
      `${this.config.baseUrl}${path}`,
      {
        method,
        headers: {
          'x-api-key': this.config.apiKey,
          ...options.headers,
          ...(options.body && { 'content-type': 'application/json' }),
        },
        body: options.body && JSON.stringify(options.body),
      },
      this.config.timeoutMs,
    );
  }
}

export function billerConnector(config: BillerConnectorConfig): Connector {
  return { protocol: 'biller', billPayment: new BillerPayments(config) };
}
