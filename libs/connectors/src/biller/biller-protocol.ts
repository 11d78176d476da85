import { toMinorUnits } from '@paygate/money';
import { isRecord, nonEmpty } from '../json';
import type { Bill, BillPayment } from '../port';

const BILL_STATUSES: ReadonlySet<unknown> = new Set(['AVAILABLE', 'SUBMITTED', 'PAID', 'EXPIRED']);

/**
 * The biller's JSON amount (a number in major units) in minor units; undefined when it is not a valid amount of
 * `currency`.
 */
function minorAmount(amount: unknown, currency: unknown): number | undefined {
  if (typeof amount !== 'number' || typeof currency !== 'string') return undefined;
  const converted = toMinorUnits(amount, currency);
  return converted.ok ? converted.minor : undefined;
}

function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const time = new Date(value);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}

/** The biller's PRN representation, normalised; undefined when the body is not one. */
export function billFrom(body: unknown): Bill | undefined {
  if (!isRecord(body)) return undefined;
  const prn = nonEmpty(body.prn);
  const amount = minorAmount(body.amount, body.currency);
  const expiresAt = isoTime(body.expires_at);
  const { status, payer_name: payerName, service_name: serviceName } = body;
  if (
    !prn ||
    amount === undefined ||
    !expiresAt ||
    !BILL_STATUSES.has(status) ||
    typeof payerName !== 'string' ||
    typeof serviceName !== 'string'
  )
    return undefined;
  return {
    prn,
    amount,
    currency: body.currency as string,
    status: status as Bill['status'],
    expiresAt,
    payerName,
    serviceName,
  };
}

/** The biller's payment representation, normalised; undefined when the body is not one. */
export function paymentFrom(body: unknown): BillPayment | undefined {
  if (!isRecord(body)) return undefined;
  const providerTransactionId = nonEmpty(body.payment_id);
  const prn = nonEmpty(body.prn);
  const amount = minorAmount(body.amount, body.currency);
  const reference = nonEmpty(body.reference);
  if (!providerTransactionId || !prn || amount === undefined || !reference) return undefined;
  const recorded = { providerTransactionId, prn, amount, currency: body.currency as string, reference };
  if (body.status === 'PENDING') return { ...recorded, status: 'PENDING' };
  if (body.status !== 'COMPLETED') return undefined;
  const receiptNumber = nonEmpty(body.receipt_number);
  const paidAt = isoTime(body.paid_at);
  return receiptNumber && paidAt ? { ...recorded, status: 'SUCCESSFUL', receiptNumber, paidAt } : undefined;
}
