/**
 * Words of the payments context that its API records and integration events share, and the
 * names of its streams (`service-payment-<internal_reference>`, `wallet-<merchantId>-<currency>`),
 * which analysts read. The service payment's and the wallet's domain events are the payments
 * context's own (libs/payments/domain, events.ts).
 */
export const SERVICE_PAYMENT_STREAM_PREFIX = 'service-payment-';
export const servicePaymentStream = (internalReference: string) =>
  `${SERVICE_PAYMENT_STREAM_PREFIX}${internalReference}`;

export const WALLET_STREAM_PREFIX = 'wallet-';

export interface WalletRef {
  merchantId: string;
  currency: string;
}

/**
 * A wallet's id on the decider runtime, `<merchantId>-<currency>`: the currency is always the last three characters.
 */
export const walletId = ({ merchantId, currency }: WalletRef) => `${merchantId}-${currency}`;
export const walletStream = (wallet: WalletRef) => `${WALLET_STREAM_PREFIX}${walletId(wallet)}`;

/** PENDING until the PRN is paid (COMPLETED) or will not be (FAILED); what callbacks report. */
export const SERVICE_PAYMENT_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type ServicePaymentStatus = (typeof SERVICE_PAYMENT_STATUSES)[number];
