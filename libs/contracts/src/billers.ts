import { isSupportedCurrency } from '@paygate/money';
import { BILL_PAYMENT_PROTOCOLS, isBillPaymentProtocol, type BillPaymentProtocol } from './connectors';

/*
 * The biller catalogue: where Paygate pays bills (a URA payment registration number) from a
 * merchant's wallet. Kept apart from the provider catalogue, which lists payment options a
 * payer collects with; a biller is never one of those.
 */

export interface Biller {
  /** biller_code: what the connector registry is keyed by, next to the provider codes. */
  code: string;
  name: string;
  /** The one currency its bills are in. */
  currency: string;
  countryCode: string;
  /** The protocol its connector speaks. */
  connector: BillPaymentProtocol;
  /** The form of its bill numbers (PRNs): a request with anything else need not reach the biller. */
  referencePattern: RegExp;
}

export type BillerCatalogue = ReadonlyMap<string, Biller>;

export class BillerCatalogueError extends Error {
  override readonly name = 'BillerCatalogueError';
}

function text(
  entry: Record<string, unknown>,
  key: string,
  where: string,
  check: (value: string) => boolean = (value) => value.length > 0,
  what = 'a non-empty string',
): string {
  const value = entry[key];
  if (typeof value !== 'string' || !check(value)) throw new BillerCatalogueError(`${where}.${key} must be ${what}`);
  return value;
}

/** Validates the configured biller catalogue (BILLER_CATALOGUE_FILE, read at start); a bad entry stops the process. */
export function parseBillerCatalogue(raw: unknown): BillerCatalogue {
  const entries = (raw as { billers?: unknown } | null)?.billers;
  if (!Array.isArray(entries)) throw new BillerCatalogueError('billers must be an array');
  const catalogue = new Map<string, Biller>();
  entries.forEach((entry: unknown, index) => {
    const where = `billers[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new BillerCatalogueError(`${where} must be an object`);
    const fields = entry as Record<string, unknown>;
    const code = text(
      fields,
      'biller_code',
      where,
      (value) => /^[a-z0-9_]{1,64}$/.test(value),
      '1 to 64 lowercase letters, digits or _',
    );
    if (catalogue.has(code)) throw new BillerCatalogueError(`${where}.biller_code ${code} appears twice`);
    const connector = fields.connector ?? 'biller';
    if (!isBillPaymentProtocol(connector))
      throw new BillerCatalogueError(`${where}.connector must be one of ${BILL_PAYMENT_PROTOCOLS.join(', ')}`);
    const pattern = text(fields, 'reference_pattern', where);
    let referencePattern: RegExp;
    try {
      // Anchored whatever the file says: a pattern matches the whole number or nothing.
      referencePattern = new RegExp(`^(?:${pattern})$`);
    } catch {
      throw new BillerCatalogueError(`${where}.reference_pattern must be a regular expression`);
    }
    catalogue.set(code, {
      code,
      name: text(fields, 'biller_name', where),
      currency: text(fields, 'currency', where, isSupportedCurrency, 'a supported currency'),
      countryCode: text(fields, 'country_code', where, (value) => /^[A-Z]{2}$/.test(value), 'an ISO 3166 alpha-2 code'),
      connector,
      referencePattern,
    });
  });
  return catalogue;
}
