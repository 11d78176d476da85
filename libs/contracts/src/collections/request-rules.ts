import { chargesLeaveCredit, computeCharges, formatMoney, toMinorUnits, type Charges } from '@paygate/money';
import type { Provider, ProviderCatalogue } from './catalogue';
import type { CollectionRequest } from './commands';

/*
 * The request rules that depend on the provider catalogue (provider, method, currency, decimals,
 * limits, msisdn network, fee cover) are part of the contract: the gateway applies them before a
 * command is sent, the collections service applies them again because it owns the charges.
 */

export interface FieldError {
  field: string;
  message: string;
}

export interface CollectionPlan {
  provider: Provider;
  requestAmount: number;
  charges: Charges;
}

export type PlanResult = { ok: true; plan: CollectionPlan } | { ok: false; errors: FieldError[] };

/** True when `msisdn` is one of the provider's numbers: calling code, network prefix, right length. */
export function msisdnBelongsTo(provider: Provider, msisdn: string): boolean {
  const callingCode = provider.callingCode ?? '';
  if (!/^[0-9]+$/.test(msisdn) || !msisdn.startsWith(callingCode)) return false;
  const national = msisdn.slice(callingCode.length);
  return (
    national.length === provider.nationalNumberLength && provider.prefixes.some((prefix) => national.startsWith(prefix))
  );
}

/**
 * The rules of docs/api.md (Initialize) that depend on the provider catalogue, applied to a request whose
 * shape is already valid. The gateway runs it to answer 400 before anything is written; the
 * service runs it again because it owns the charges.
 */
export function planCollection(
  request: CollectionRequest,
  catalogue: ProviderCatalogue,
  { prnRequired = false } = {},
): PlanResult {
  // Collect-for-payment pays a PRN from what it collects: without one there is nothing to plan.
  if (prnRequired && request.prn === undefined)
    return { ok: false, errors: [{ field: 'prn', message: 'prn is required' }] };
  const provider = catalogue.get(request.provider_code);
  if (!provider || !provider.enabled) {
    return {
      ok: false,
      errors: [
        { field: 'provider_code', message: `provider_code ${request.provider_code} is not an available provider` },
      ],
    };
  }
  const errors: FieldError[] = [];
  if (request.transaction_method !== provider.method) {
    errors.push({
      field: 'transaction_method',
      message: `transaction_method must be ${provider.method} for provider ${provider.code}`,
    });
  }
  if (request.currency !== provider.currency) {
    errors.push({ field: 'currency', message: `currency must be ${provider.currency} for provider ${provider.code}` });
  }
  let plan: CollectionPlan | undefined;
  const amount = toMinorUnits(request.amount, provider.currency);
  if (!amount.ok) {
    errors.push({ field: 'amount', message: `amount ${amount.reason}` });
  } else if (amount.minor < provider.minAmount || amount.minor > provider.maxAmount) {
    const range = `${formatMoney(provider.minAmount, provider.currency)} and ${formatMoney(provider.maxAmount, provider.currency)}`;
    errors.push({ field: 'amount', message: `amount must be between ${range} for provider ${provider.code}` });
  } else {
    const charges = computeCharges(amount.minor, provider.fee, request.charge_customer);
    if (!chargesLeaveCredit(charges)) {
      errors.push({
        field: 'amount',
        message: `amount does not cover the fee of ${formatMoney(charges.fee, provider.currency)}`,
      });
    } else {
      plan = { provider, requestAmount: amount.minor, charges };
    }
  }
  if (provider.method === 'MOBILE_MONEY') {
    if (request.msisdn === undefined) errors.push({ field: 'msisdn', message: 'msisdn is required for MOBILE_MONEY' });
    else if (!msisdnBelongsTo(provider, request.msisdn))
      errors.push({ field: 'msisdn', message: `msisdn ${request.msisdn} is not valid for provider ${provider.code}` });
  }
  // Collect-for-payment may leave it out: the customer then ends on a hosted result page.
  if (provider.method === 'CARD' && request.redirect_url === undefined && request.prn === undefined) {
    errors.push({ field: 'redirect_url', message: 'redirect_url is required for CARD' });
  }
  return errors.length > 0 || !plan ? { ok: false, errors } : { ok: true, plan };
}
