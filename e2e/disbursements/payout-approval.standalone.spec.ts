import { ApprovePayout, CommandRejectedError, RequestPayout } from '@paygate/contracts';
import {
  eventually,
  PaygateClient,
  TEST_ADMIN_TOKEN,
  topUpWallet,
  walletShows,
  type WalletBalance,
} from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';

/** A payout above the approval threshold is cancelled this long after it was asked for, unapproved. */
const APPROVAL_TIMEOUT_MS = 3000;
const THRESHOLD = 20_000;
const FEE = 500;

/**
 * Approval of payouts above the merchant's threshold, as the dashboard asks for it (disbursements.approvePayout, sent
 * here as the dashboard's gateway sends it): approved by another owner it is sent and paid; unapproved it is
 * CANCELLED when its time is up, its hold released.
 */
describe('payout approval in standalone mode (disbursements.approvePayout, the cancellation timer)', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;
  let sequence = 0;
  const reference = () => `po-approval-${process.pid}-${++sequence}`;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate({ PAYOUT_APPROVAL_TIMEOUT_MS: String(APPROVAL_TIMEOUT_MS) });
    client = await PaygateClient.withNewMerchant(paygate.url, undefined, 'Payout merchant, approvals');
    await topUpWallet(paygate.url, client.merchant.id, 200_000);
    const patched = await fetch(`${paygate.url}/admin/v1/merchants/${client.merchant.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payout_approval_threshold: THRESHOLD }),
    });
    expect(patched.status).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await paygate?.close();
  });

  const approve = (payoutReference: string, approverId: string) =>
    paygate.infrastructure.commands.send(
      new ApprovePayout({ merchantId: client.merchant.id, payoutReference, approverId }),
    );
  const statusOf = async (payoutReference: string) =>
    (await client.request<{ status: string }>('GET', `/v1/payouts/${payoutReference}`, { secret: true })).body.data
      .status;
  const becomes = (payoutReference: string, status: string) =>
    eventually(
      async () => ((await statusOf(payoutReference)) === status ? true : undefined),
      30_000,
      `payout ${payoutReference} ${status}`,
    );
  const wallet = async () =>
    (await client.request<WalletBalance[]>('GET', '/v1/wallet-balances', { secret: true })).body.data[0];
  /** As the dashboard asks for a payout: the API's request, with the owner who asked. */
  const requestAs = (payoutReference: string, createdBy: string) =>
    paygate.infrastructure.commands.send(
      new RequestPayout({
        merchantId: client.merchant.id,
        payoutReference,
        currency: 'UGX',
        amount: THRESHOLD + 1,
        providerCode: 'mtn_momo_ug',
        msisdn: '256772000001',
        settings: { approvalThreshold: THRESHOLD, dailyCap: null },
        createdBy,
      }),
    );
  const refusalOf = (act: Promise<unknown>) =>
    act.then(
      () => undefined,
      (error: unknown) => error as CommandRejectedError,
    );

  it('one asked through the API, approved by an owner: sent and paid; approving again changes nothing', async () => {
    const before = await wallet();
    const payoutReference = reference();
    const asked = await client.request<{ status: string }>('POST', '/v1/payouts', {
      body: {
        payout_reference: payoutReference,
        currency: 'UGX',
        amount: THRESHOLD + 1,
        provider_code: 'mtn_momo_ug',
        msisdn: '256772000001',
      },
      secret: true,
    });
    expect(asked.body.data.status).toBe('PENDING_APPROVAL');
    const { payout } = await approve(payoutReference, 'usr_owner_b');
    expect(payout.status).toBe('PENDING');
    await becomes(payoutReference, 'COMPLETED');
    const paid = before.balance - THRESHOLD - 1 - FEE;
    await walletShows(client, { balance: paid, available_balance: paid }, 'the approved payout paid');
    expect((await approve(payoutReference, 'usr_owner_c')).payout.status).toBe('COMPLETED');
  });

  it('one asked in the dashboard cannot be approved by the owner who asked for it; another owner can', async () => {
    const payoutReference = reference();
    await requestAs(payoutReference, 'usr_owner_a');
    const refused = await refusalOf(approve(payoutReference, 'usr_owner_a'));
    expect(refused).toBeInstanceOf(CommandRejectedError);
    expect(refused?.code).toBe('invalid_request');
    expect(await statusOf(payoutReference)).toBe('PENDING_APPROVAL');
    expect((await approve(payoutReference, 'usr_owner_b')).payout.status).toBe('PENDING');
    await becomes(payoutReference, 'COMPLETED');
  });

  it('unapproved when its time is up: CANCELLED, its hold released; then it cannot be approved', async () => {
    const before = await wallet();
    const payoutReference = reference();
    await requestAs(payoutReference, 'usr_owner_a');
    await walletShows(
      client,
      { balance: before.balance, available_balance: before.available_balance - THRESHOLD - 1 - FEE },
      'the payout held',
    );
    await becomes(payoutReference, 'CANCELLED');
    await walletShows(client, { balance: before.balance, available_balance: before.available_balance }, 'released');
    const refused = await refusalOf(approve(payoutReference, 'usr_owner_b'));
    expect(refused?.code).toBe('not_awaiting_confirmation');
  });

  it('an unknown payout is not found', async () => {
    expect((await refusalOf(approve('po-unknown', 'usr_owner_b')))?.code).toBe('not_found');
  });
});
