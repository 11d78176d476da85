import { PAYMENTS_INTEGRATION_EVENTS as PUBLISHED } from '@paygate/contracts';
import { eventually, type PaygateClient } from '@paygate/testing';
import { PaymentsHarness } from './service-payments-test-setup';

/**
 * GET /v1/wallet/transactions: the wallet ledger as the merchant reads it, newest first, each entry
 * with the transfers it posted and what it changed the balance and the available balance by.
 */
interface Entry {
  id: string;
  type: string;
  currency: string;
  balance_change: number;
  available_change: number;
  hold_id: string | null;
  purpose: string | null;
  internal_reference: string | null;
  transfers: { transfer_id: string; debit_account: string; credit_account: string; amount: number }[];
  created_at: string;
}
interface Page {
  transactions: Entry[];
  next_cursor: string | null;
}

describe('service-payments: the wallet statement', () => {
  let harness: PaymentsHarness;
  let merchant: PaygateClient;
  let ref: string;

  const page = async (client: PaygateClient, query = ''): Promise<Page> => {
    const answer = await client.request<Page>('GET', `/v1/wallet/transactions${query}`, { secret: true });
    expect(answer.status).toBe(200);
    return answer.body.data;
  };
  const everything = async (query = '?limit=2'): Promise<Entry[]> => {
    const entries: Entry[] = [];
    let cursor: string | null = null;
    do {
      const listed: Page = await page(merchant, `${query}${cursor ? `&cursor=${cursor}` : ''}`);
      entries.push(...listed.transactions);
      cursor = listed.next_cursor;
    } while (cursor);
    return entries;
  };

  beforeAll(async () => {
    harness = await PaymentsHarness.start();
    merchant = harness.merchant;
    await harness.topUp(1_000);
    await harness.topUp(10.5, merchant.merchant.id, 'KES');
    const prn = await harness.createPrn();
    ref = await harness.initiate({ prn });
    await harness.eventuallyHas(ref, PUBLISHED.prnValidated);
    await harness.prnAccepted(ref);
    await harness.settle(ref, 'COMPLETED');
    await harness.eventuallyHas(ref, PUBLISHED.completed);
    // Top-ups 2, the fee held and released, the collection credited, the PRN's amount held and captured.
    await eventually(
      async () => ((await page(merchant, '?limit=100')).transactions.length === 7 ? true : undefined),
      15_000,
      'seven entries',
    );
  });

  afterAll(async () => {
    await harness?.close();
  });

  it('adds up to the balances, entry by entry, in each currency', async () => {
    const entries = await everything('?limit=100');
    const balances = await merchant.request<{ currency: string; balance: number; available_balance: number }[]>(
      'GET',
      '/v1/wallet-balances',
      { secret: true },
    );
    for (const wallet of balances.body.data) {
      const own = entries.filter((entry) => entry.currency === wallet.currency);
      expect(own.reduce((sum, entry) => sum + entry.balance_change, 0)).toBe(wallet.balance);
      expect(own.reduce((sum, entry) => sum + entry.available_change, 0)).toBe(wallet.available_balance);
    }
    expect(balances.body.data.map((wallet) => wallet.currency)).toEqual(['KES', 'UGX']);
  });

  it('shows each movement with its transfers, and the holds with their purpose and collection', async () => {
    const entries = await everything('?currency=UGX&limit=100');
    expect(entries.map((entry) => entry.type).sort()).toEqual(
      ['collection_credit', 'hold', 'hold', 'hold_capture', 'hold_release', 'top_up'].sort(),
    );
    const credit = entries.find((entry) => entry.type === 'collection_credit')!;
    expect(credit).toMatchObject({ internal_reference: ref, balance_change: 24_625, available_change: 24_625 });
    expect(credit.transfers).toContainEqual(
      expect.objectContaining({
        debit_account: 'customer_funds:UGX',
        credit_account: `merchant_wallet:${merchant.merchant.id}:UGX`,
        amount: 24_625,
      }),
    );
    const holds = entries.filter((entry) => entry.type === 'hold');
    expect(holds.map((hold) => [hold.purpose, hold.available_change, hold.balance_change, hold.transfers])).toEqual(
      expect.arrayContaining([
        ['FEE', -375, 0, []],
        ['PRN_PAYMENT', -25_000, 0, []],
      ]),
    );
    expect(holds.every((hold) => hold.internal_reference === ref)).toBe(true);
    const capture = entries.find((entry) => entry.type === 'hold_capture')!;
    expect(capture).toMatchObject({ balance_change: -25_000, available_change: 0 });
    expect(capture.transfers[0]).toMatchObject({ credit_account: 'biller_settlement:UGX', amount: 25_000 });
  });

  it('pages newest first with next_cursor, each entry once', async () => {
    const paged = await everything('?limit=2');
    expect(new Set(paged.map((entry) => entry.id)).size).toBe(7);
    const times = paged.map((entry) => entry.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(paged).toEqual(await everything('?limit=100'));
  });

  it("shows no other merchant's entries", async () => {
    const other = await harness.newMerchant('Statement neighbour');
    expect((await page(other)).transactions).toEqual([]);
  });

  it.each([
    ['?currency=ugx', 'currency'],
    ['?currency=UGX&currency=KES', 'currency'],
    ['?limit=101', 'limit'],
    ['?cursor=abc', 'cursor'],
    ['?type=hold', 'type'],
  ])('%s answers 400 naming %s', async (query, field) => {
    const answer = await merchant.request<{ errors: { field: string }[] }>('GET', `/v1/wallet/transactions${query}`, {
      secret: true,
    });
    expect(answer.status).toBe(400);
    expect(answer.body.data.errors.map((error) => error.field)).toEqual([field]);
  });
});
