import type { CollectionDetails } from '@paygate/contracts';

/** The columns of the collections export, in order: the record as GET /v1/collections/{ref} answers it. */
const COLUMNS: Array<[string, (record: CollectionDetails) => string | number | boolean | null | undefined]> = [
  ['created_at', (record) => record.created_at],
  ['merchant_reference', (record) => record.merchant_reference],
  ['internal_reference', (record) => record.internal_reference],
  ['transaction_method', (record) => record.transaction_method],
  ['provider_code', (record) => record.provider_code],
  ['request_currency', (record) => record.request_currency],
  ['request_amount', (record) => record.request_amount],
  ['transaction_fee', (record) => record.transaction_fee],
  ['transaction_amount', (record) => record.transaction_amount],
  ['total_credit', (record) => record.total_credit],
  ['charge_customer', (record) => record.charge_customer],
  ['transaction_status', (record) => record.transaction_status],
  ['status_message', (record) => record.status_message],
  ['transaction_account', (record) => record.transaction_account],
  ['customer_name', (record) => record.customer_name],
  ['prn', (record) => record.prn],
  ['updated_at', (record) => record.updated_at],
];

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. A text starting
 * with = + - @, a tab, a carriage return or a line feed is prefixed with ' so a spreadsheet shows
 * it instead of running it as a formula (a customer name is whatever the merchant's customer typed;
 * a spreadsheet may drop a leading line break and read the formula after it).
 */
function field(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value !== 'string') return String(value);
  const safe = /^[=+\-@\t\r\n]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export const CSV_HEADER = COLUMNS.map(([name]) => name).join(',') + '\r\n';

export const csvRows = (records: CollectionDetails[]) =>
  records.map((record) => COLUMNS.map(([, value]) => field(value(record))).join(',') + '\r\n').join('');
