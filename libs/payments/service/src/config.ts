import { ConfigError, type Config } from '@paygate/config';
import type { Biller } from '@paygate/contracts';
import type { RetryPolicy } from '@paygate/payments-domain';

/** What the service-payments service reads from the configuration. */
export interface PaymentsConfig {
  /** The biller PRNs are validated and paid at (PRN_BILLER_CODE). */
  biller: Biller;
  /** PAYMENT_RETRY_ATTEMPTS, PAYMENT_RETRY_BASE_MS, PAYMENT_RETRY_MAX_DELAY_MS. */
  retry: RetryPolicy;
  statusPollMs: number;
  timerTickMs: number;
}

/** Fails the start (ConfigError) when PRN_BILLER_CODE names no biller of the catalogue. */
export function paymentsConfig(config: Config): PaymentsConfig {
  const { billerCode, retryAttempts, retryBaseMs, retryMaxDelayMs, statusPollMs, timerTickMs } = config.payments;
  const biller = config.billers.get(billerCode);
  if (!biller)
    throw new ConfigError(
      'PRN_BILLER_CODE',
      `must be a biller_code of the biller catalogue (${[...config.billers.keys()].join(', ')}), got "${billerCode}"`,
    );
  return {
    biller,
    retry: { maxAttempts: retryAttempts, baseDelayMs: retryBaseMs, maxDelayMs: retryMaxDelayMs },
    statusPollMs,
    timerTickMs,
  };
}
