import { isSupportedCurrency, toMinorUnits } from '@paygate/money';
import type { MerchantPayoutSettings } from './commands';

/** A merchant's payout settings as kept: whole units of the payout's currency, null for none. */
export interface MerchantPayoutLimits {
  payoutApprovalThreshold: number | null;
  payoutDailyCap: number | null;
}

/** Whole units of `currency` in minor units; null stays null. */
const inMinorUnits = (whole: number | null, currency: string) => {
  if (whole === null || !isSupportedCurrency(currency)) return null;
  const converted = toMinorUnits(whole, currency);
  return converted.ok ? converted.minor : null;
};

/** The merchant's payout settings for a payout in `currency`, as the payout command takes them. */
export const payoutSettingsIn = (merchant: MerchantPayoutLimits, currency: string): MerchantPayoutSettings => ({
  approvalThreshold: inMinorUnits(merchant.payoutApprovalThreshold, currency),
  dailyCap: inMinorUnits(merchant.payoutDailyCap, currency),
});
