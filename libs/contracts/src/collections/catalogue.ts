import { isSupportedCurrency, parseFeeSchedule, toMinorUnits, type FeeRule } from '@paygate/money';
import { COLLECT_PROTOCOLS, isCollectProtocol, type CollectProtocol } from '../connectors';
import type { TransactionMethod } from './vocabulary';

/*
 * The provider catalogue is contract-level: the gateway validates and lists payment options with
 * it, the collections service plans with it, configuration parses it. Pure (money rules only).
 */

/** A payment option as configured (docs/api.md, Payment options); amounts in minor units of `currency`. */
export interface Provider {
  code: string;
  name: string;
  method: TransactionMethod;
  currency: string;
  countryCode: string;
  /** Dialling code that starts every msisdn, e.g. 256. */
  callingCode?: string;
  /** Network prefixes after the calling code, e.g. 77. */
  prefixes: string[];
  /** Digits after the calling code (9 in Uganda). */
  nationalNumberLength: number;
  minAmount: number;
  maxAmount: number;
  fee: FeeRule;
  /** Payouts to this provider's numbers: per-payout limits and Paygate's fee (minor units); absent, none are made. */
  payout?: PayoutTerms;
  /**
   * The provider refunds only whole payments (`"partial_refunds": false`): a partial refund of a mobile money payment
   * is paid out to the payer's number instead. Absent: it refunds parts too.
   */
  fullRefundsOnly?: true;
  enabled: boolean;
  /** The protocol its connector speaks, when not the default for `method` (see libs/connectors). */
  connector?: CollectProtocol;
}

/** What a payout through a provider may be and costs, integer minor units. */
export interface PayoutTerms {
  minAmount: number;
  maxAmount: number;
  fee: FeeRule;
}

export type ProviderCatalogue = ReadonlyMap<string, Provider>;

export class CatalogueError extends Error {
  override readonly name = 'CatalogueError';
}

function field<T>(
  entry: Record<string, unknown>,
  key: string,
  check: (value: unknown) => value is T,
  what: string,
  where: string,
): T {
  const value = entry[key];
  if (!check(value)) throw new CatalogueError(`${where}.${key} must be ${what}`);
  return value;
}

const isText = (value: unknown): value is string => typeof value === 'string' && value.length > 0;
const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/**
 * Validates the configured catalogue (PROVIDER_CATALOGUE_FILE, read by loadConfig at start-up); a bad entry stops the
 * process.
 */
export function parseProviderCatalogue(raw: unknown): ProviderCatalogue {
  const entries = (raw as { providers?: unknown } | null)?.providers;
  if (!Array.isArray(entries) || entries.length === 0) throw new CatalogueError('providers must be a non-empty array');
  const catalogue = new Map<string, Provider>();
  entries.forEach((entry: Record<string, unknown>, index) => {
    const where = `providers[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry))
      throw new CatalogueError(`${where} must be an object`);
    const code = field(entry, 'provider_code', isText, 'a non-empty string', where);
    if (catalogue.has(code)) throw new CatalogueError(`${where}.provider_code ${code} appears twice`);
    const method = field(
      entry,
      'transaction_method',
      (v): v is TransactionMethod => v === 'MOBILE_MONEY' || v === 'CARD',
      'MOBILE_MONEY or CARD',
      where,
    );
    const currency = field(
      entry,
      'transaction_currency',
      (v): v is string => typeof v === 'string' && isSupportedCurrency(v),
      'a supported currency',
      where,
    );
    const minorOf = (of: Record<string, unknown>, key: string, at: string) => {
      const converted = toMinorUnits(field(of, key, isNumber, 'a number', at), currency);
      if (!converted.ok) throw new CatalogueError(`${at}.${key}: ${converted.reason}`);
      return converted.minor;
    };
    const minor = (key: string) => minorOf(entry, key, where);
    const feeOf = (raw: unknown, at: string) => {
      try {
        return parseFeeSchedule(raw, currency);
      } catch (error) {
        throw new CatalogueError(`${at}.fee: ${(error as Error).message}`);
      }
    };
    const prefixes = entry.prefixes ?? [];
    if (!Array.isArray(prefixes) || !prefixes.every((p) => typeof p === 'string' && /^[0-9]+$/.test(p))) {
      throw new CatalogueError(`${where}.prefixes must be an array of digit strings`);
    }
    const callingCode = entry.calling_code;
    if (
      method === 'MOBILE_MONEY' &&
      (typeof callingCode !== 'string' || !/^[0-9]{1,4}$/.test(callingCode) || prefixes.length === 0)
    ) {
      throw new CatalogueError(`${where}: a MOBILE_MONEY provider needs calling_code and prefixes`);
    }
    const connector = entry.connector;
    if (connector !== undefined && !isCollectProtocol(connector))
      throw new CatalogueError(`${where}.connector must be one of ${COLLECT_PROTOCOLS.join(', ')}`);
    const fee: FeeRule = feeOf(entry.fee, where);
    const partialRefunds = entry.partial_refunds ?? true;
    if (typeof partialRefunds !== 'boolean') throw new CatalogueError(`${where}.partial_refunds must be true or false`);
    let payout: PayoutTerms | undefined;
    if (entry.payout !== undefined) {
      const at = `${where}.payout`;
      const terms = entry.payout as Record<string, unknown>;
      if (typeof terms !== 'object' || terms === null || Array.isArray(terms))
        throw new CatalogueError(`${at} must be an object`);
      if (method !== 'MOBILE_MONEY') throw new CatalogueError(`${at}: payouts go to MOBILE_MONEY providers only`);
      payout = {
        minAmount: minorOf(terms, 'min_amount', at),
        maxAmount: minorOf(terms, 'max_amount', at),
        fee: feeOf(terms.fee, at),
      };
      if (payout.minAmount < 1 || payout.minAmount > payout.maxAmount)
        throw new CatalogueError(`${at}: min_amount must be above 0 and at most max_amount`);
    }
    const provider: Provider = {
      code,
      name: field(entry, 'provider_name', isText, 'a non-empty string', where),
      method,
      currency,
      countryCode: field(
        entry,
        'country_code',
        (v): v is string => typeof v === 'string' && /^[A-Z]{2}$/.test(v),
        'an ISO 3166 alpha-2 code',
        where,
      ),
      callingCode: typeof callingCode === 'string' ? callingCode : undefined,
      prefixes: prefixes as string[],
      nationalNumberLength:
        entry.national_number_length === undefined
          ? 9
          : field(
              entry,
              'national_number_length',
              (v): v is number => Number.isInteger(v) && (v as number) > 0,
              'a positive integer',
              where,
            ),
      minAmount: minor('min_amount'),
      maxAmount: minor('max_amount'),
      fee,
      ...(payout && { payout }),
      ...(!partialRefunds && { fullRefundsOnly: true as const }),
      enabled: entry.enabled !== false,
      ...(connector !== undefined && { connector }),
    };
    if (provider.minAmount > provider.maxAmount) throw new CatalogueError(`${where}: min_amount exceeds max_amount`);
    catalogue.set(code, provider);
  });
  return catalogue;
}
