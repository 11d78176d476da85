import type { Config } from '@paygate/config';
import type { MoneyOutProcessConfig } from '@paygate/disbursements-domain';

/** What the disbursements service reads from the configuration. */
export interface DisbursementsConfig extends MoneyOutProcessConfig {
  timerTickMs: number;
  /** Where providers call back (MONEY_OUT_CALLBACK_URL); unset: this process's URL. */
  providerCallbackUrl?: string;
}

export function disbursementsConfig(config: Config): DisbursementsConfig {
  const { statusPollMs, attentionAfterMs, approvalTimeoutMs, reversalWatchMs, timerTickMs, providerCallbackUrl } =
    config.disbursements;
  return { statusPollMs, attentionAfterMs, approvalTimeoutMs, reversalWatchMs, timerTickMs, providerCallbackUrl };
}
