import { PaygateClient, TEST_ADMIN_TOKEN, type ApiResponse } from './paygate-client';
import { eventually } from './wait';

/** The sandbox's admin API, as a test drives it. */
export class SandboxAdmin {
  constructor(private readonly baseUrl: string) {}

  async request<Data = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<ApiResponse<Data>> {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${TEST_ADMIN_TOKEN}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as ApiResponse<Data>['body'] };
  }

  /** A fresh PRN (13 generated digits) for this amount, AVAILABLE unless told otherwise. */
  async createPrn(amount: number, overrides: Record<string, unknown> = {}): Promise<string> {
    const created = await this.request<{ prn: string }>('POST', '/sandbox/v1/prns', {
      amount,
      currency: 'UGX',
      service_name: 'URA - Domestic Tax',
      ...overrides,
    });
    if (created.status !== 201)
      throw new Error(`cannot create a PRN: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body.data.prn;
  }

  /** The PRN as the biller holds it: status, payment calls received, payments made. */
  async prn(prn: string): Promise<{ status: string; payment_calls: number; payments: { payment_id: string }[] }> {
    return (
      await this.request<{ status: string; payment_calls: number; payments: { payment_id: string }[] }>(
        'GET',
        `/sandbox/v1/prns/${prn}`,
      )
    ).body.data;
  }

  /**
   * Paid exactly once: one payment at the biller and the PRN PAID. The number of calls may be
   * higher: a status check repeats the call with the same idempotency key, which pays nothing more.
   */
  async expectPaidOnce(prn: string): Promise<void> {
    const atBiller = await this.prn(prn);
    if (atBiller.status !== 'PAID' || atBiller.payments.length !== 1)
      throw new Error(`PRN ${prn} not paid exactly once: ${JSON.stringify(atBiller)}`);
  }

  async paymentCalls(prn: string): Promise<number> {
    return (await this.prn(prn)).payment_calls;
  }

  async billerFaults(faults: { fail_next?: number; delay_ms?: number; fail_lookups_next?: number }): Promise<void> {
    const answer = await this.request('PUT', '/sandbox/v1/biller/faults', faults);
    if (answer.status >= 300) throw new Error(`biller faults refused: ${answer.status} ${JSON.stringify(answer.body)}`);
  }
}

export interface WalletBalance {
  currency: string;
  balance: number;
  available_balance: number;
}

/** A merchant's UGX wallet as `GET /v1/wallet-balances` shows it (zero when it has none yet). */
export async function walletOf(client: PaygateClient): Promise<WalletBalance> {
  const wallets = (await client.request<WalletBalance[]>('GET', '/v1/wallet-balances', { secret: true })).body.data;
  return wallets.find((wallet) => wallet.currency === 'UGX') ?? { currency: 'UGX', balance: 0, available_balance: 0 };
}

/** Tops up a merchant's UGX wallet through the gateway's admin API (`amount` in major units). */
export async function topUpWallet(gatewayUrl: string, merchantId: string, amount: number): Promise<void> {
  const response = await fetch(`${gatewayUrl}/admin/v1/wallets/top-up`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ merchant_id: merchantId, currency: 'UGX', amount }),
  });
  if (response.status >= 300) throw new Error(`top-up refused: ${response.status} ${await response.text()}`);
}

/** The wallet once nothing is held in it (a payout shown COMPLETED can still have its hold captured a moment later). */
export async function walletWithoutHolds(client: PaygateClient): Promise<WalletBalance> {
  return eventually(
    async () => {
      const wallet = await walletOf(client);
      return wallet.balance === wallet.available_balance ? wallet : undefined;
    },
    30_000,
    'nothing held in the wallet',
  );
}

/** Waits until the wallet read model shows `expected` (it trails the ledger briefly), then answers it. */
export async function walletShows(
  client: PaygateClient,
  expected: Omit<WalletBalance, 'currency'>,
  what: string,
): Promise<WalletBalance> {
  let last: WalletBalance | undefined;
  try {
    return await eventually(
      async () => {
        last = await walletOf(client);
        return last.balance === expected.balance && last.available_balance === expected.available_balance
          ? last
          : undefined;
      },
      30_000,
      what,
    );
  } catch (error) {
    throw new Error(
      `${(error as Error).message}: expected ${JSON.stringify(expected)}, last seen ${JSON.stringify(last)}`,
    );
  }
}
