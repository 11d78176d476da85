import { Injectable } from '@nestjs/common';
import { toMajorUnits, toMinorUnits } from '@paygate/money';
import { Background } from '../background';
import { billerApiError } from '../provider-api-error';
import { BillerStore, type Faults, type NewPayment, type NewPrn, type Payment, type Prn } from './biller-store';

/** Visible ASCII, as most APIs take an Idempotency-Key (a UUID fits). */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The PRN as the biller API shows it: amounts as JSON numbers in major units, like every Paygate amount. */
export function prnBody(prn: Prn): Record<string, unknown> {
  return {
    prn: prn.prn,
    amount: toMajorUnits(prn.amount, prn.currency),
    currency: prn.currency,
    status: prn.status,
    expires_at: prn.expiresAt.toISOString(),
    payer_name: prn.payerName,
    service_name: prn.serviceName,
  };
}

export function paymentBody(payment: Payment): Record<string, unknown> {
  return {
    payment_id: payment.paymentId,
    idempotency_key: payment.idempotencyKey,
    prn: payment.prn,
    amount: toMajorUnits(payment.amount, payment.currency),
    currency: payment.currency,
    reference: payment.reference,
    status: payment.status,
    // A receipt exists once the biller has the money.
    ...(payment.status === 'COMPLETED' && {
      receipt_number: payment.receiptNumber,
      paid_at: payment.completesAt.toISOString(),
    }),
  };
}

interface PaymentRequest {
  amount: number;
  currency: string;
  reference: string;
}

function parsePaymentRequest(body: unknown): PaymentRequest {
  const invalid = (field: string, message: string) => billerApiError(400, 'INVALID_REQUEST', message, field);
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw invalid('body', 'the request body must be a JSON object');
  const { amount, currency, reference } = body as Record<string, unknown>;
  if (typeof amount !== 'number' || !Number.isFinite(amount) || amount <= 0)
    throw invalid('amount', 'amount must be a positive number in major units');
  if (typeof currency !== 'string' || !/^[A-Z]{3}$/.test(currency))
    throw invalid('currency', 'currency must be an ISO 4217 code');
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 100)
    throw invalid('reference', 'reference must be a string of 1 to 100 characters');
  return { amount, currency, reference };
}

const sameMinor = (amount: number, currency: string, minor: number) => {
  const converted = toMinorUnits(amount, currency);
  return converted.ok && converted.minor === minor;
};

/**
 * The payment a call asks for, decided against the key's earlier payment and the PRN: the same
 * request with a known key is that payment again; anything the PRN cannot take is refused.
 */
function decidePayment(
  idempotencyKey: string,
  prnNumber: string,
  request: PaymentRequest,
  existing: Payment | undefined,
  prn: Prn | undefined,
): NewPayment | Payment {
  if (existing) {
    const same =
      existing.prn === prnNumber &&
      existing.currency === request.currency &&
      existing.reference === request.reference &&
      sameMinor(request.amount, existing.currency, existing.amount);
    if (!same)
      throw billerApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'this Idempotency-Key was used for a different payment');
    return existing;
  }
  if (!prn) throw billerApiError(404, 'PRN_NOT_FOUND', 'no such PRN');
  if (prn.status === 'PAID') throw billerApiError(409, 'PRN_ALREADY_PAID', 'this PRN is already paid');
  if (prn.status === 'SUBMITTED')
    throw billerApiError(409, 'PRN_PAYMENT_IN_PROGRESS', 'a payment for this PRN is being processed');
  if (prn.status === 'EXPIRED')
    throw billerApiError(422, 'PRN_EXPIRED', 'this PRN has expired and can no longer be paid');
  if (request.currency !== prn.currency)
    throw billerApiError(422, 'CURRENCY_MISMATCH', "currency must be the PRN's currency", 'currency');
  if (!sameMinor(request.amount, prn.currency, prn.amount))
    throw billerApiError(422, 'AMOUNT_MISMATCH', "amount must be the PRN's amount, in full", 'amount');
  return { idempotencyKey, prn: prnNumber, amount: prn.amount, currency: prn.currency, reference: request.reference };
}

/** The sandbox biller: PRNs, payments by idempotency key, and the faults tests inject. */
@Injectable()
export class BillerSandbox {
  constructor(
    private readonly store: BillerStore,
    private readonly background: Background,
  ) {}

  /** A PRN lookup of the biller API; an injected failure answers 503. */
  async lookUpPrn(prn: string): Promise<Prn | undefined> {
    if (await this.store.takeInjectedLookupFailure())
      throw billerApiError(503, 'SERVICE_UNAVAILABLE', 'the biller is unavailable; retry later');
    return this.store.findPrn(prn);
  }

  findPayment(idempotencyKey: string): Promise<Payment | undefined> {
    return this.store.findPayment(idempotencyKey);
  }

  /**
   * One payment call. Every call for a known PRN is counted first, whatever it is answered. An
   * injected failure answers 503 having done nothing. A payment is recorded PENDING (its PRN
   * SUBMITTED) and completes when the injected delay is over; the call answers then, with the
   * payment as it stands, and a replay with the same key answers the same once it completes.
   */
  async pay(
    prn: string,
    idempotencyKey: string | undefined,
    body: unknown,
  ): Promise<{ payment: Payment; replayed: boolean }> {
    await this.store.countPaymentCall(prn);
    if (await this.store.takeInjectedFailure())
      throw billerApiError(
        503,
        'SERVICE_UNAVAILABLE',
        'the biller is unavailable; retry later with the same Idempotency-Key',
      );
    const answerAt = Date.now() + (await this.store.faults()).delayMs;
    if (idempotencyKey === undefined || !IDEMPOTENCY_KEY.test(idempotencyKey)) {
      throw billerApiError(
        400,
        'INVALID_IDEMPOTENCY_KEY',
        'an Idempotency-Key header of 1 to 255 visible ASCII characters is required',
        'Idempotency-Key',
      );
    }
    const request = parsePaymentRequest(body);
    const { payment, replayed } = await this.store.pay(
      idempotencyKey,
      prn,
      (existing, found) => decidePayment(idempotencyKey, prn, request, existing, found),
      new Date(answerAt),
    );
    const wait = Math.max(answerAt, payment.completesAt.getTime()) - Date.now();
    // A few ms over: timers may fire a little early, and the payment completes only once its time has passed.
    if (wait > 0) await this.background.sleep(wait + 5);
    return { payment: (await this.store.findPayment(idempotencyKey)) ?? payment, replayed };
  }

  // ---- admin ----

  createPrn(prn: NewPrn): Promise<Prn | undefined> {
    return this.store.createPrn(prn);
  }

  async prnWithCalls(prn: string): Promise<{ prn: Prn; payments: Payment[] } | undefined> {
    const found = await this.store.findPrn(prn);
    return found && { prn: found, payments: await this.store.paymentsFor(prn) };
  }

  faults(): Promise<Faults> {
    return this.store.faults();
  }

  setFaults(faults: Faults): Promise<Faults> {
    return this.store.setFaults(faults);
  }
}
