/**
 * Provider notifications reach the collection through its provider's connector. Status polling
 * is an hour apart here, so a collection that ends did so because a notification arrived.
 */
import { eventually, mobileMoneyRequest, PaygateClient, TEST_TIMERS } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

const HOUR_MS = '3600000';

describe('provider notifications', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;

  beforeAll(async () => {
    paygate = await startTestPaygate({
      ...TEST_TIMERS,
      CONFIRMATION_TIMEOUT_MS: HOUR_MS,
      PROMPT_TIMEOUT_MS: HOUR_MS,
      PROVIDER_STATUS_POLL_MS: HOUR_MS,
    });
    client = await PaygateClient.withNewMerchant(paygate.url);
  });

  afterAll(async () => {
    await paygate?.close();
  });

  async function prompted(msisdn: string, providerCode = 'mtn_momo_ug'): Promise<string> {
    const init = await client.initialize(mobileMoneyRequest({ msisdn, provider_code: providerCode }));
    expect(init.status).toBe(202);
    const ref = init.body.data.internal_reference as string;
    expect((await client.confirm(ref)).status).toBe(202);
    return ref;
  }

  const notify = (method: string, path: string, body: unknown) =>
    fetch(`${paygate.url}/provider-callbacks/${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const statusOf = async (ref: string) => (await client.collection(ref)).body.data.transaction_status;
  /** Notifies the way a provider retries, until the collection has ended. */
  const notifyUntilFinal = (path: string, ref: string, body: unknown) =>
    eventually(async () => {
      expect((await notify('PUT', path, body)).status).toBe(200);
      return (await statusOf(ref)) === 'PENDING' ? undefined : statusOf(ref);
    }, 10_000);

  it.each([
    ['256772000001', 'mtn_momo_ug'],
    ['256752000001', 'airtel_money_ug'],
  ])("completes %s on the provider's own callback to its provider_code", async (msisdn, providerCode) => {
    const ref = await prompted(msisdn, providerCode);
    expect(await client.finalState(ref, 10_000)).toMatchObject({
      transaction_status: 'COMPLETED',
      provider_code: providerCode,
    });
  });

  it('asks the provider on a notification, whatever its body claims', async () => {
    // 0005 succeeds at the sandbox without calling back: only our notification can end it here.
    const silent = await prompted('256772000005');
    const forged = await prompted('256772000004');
    const claim = (ref: string) => ({ externalId: ref, status: 'SUCCESSFUL', financialTransactionId: '1' });
    expect((await notify('PUT', `mtn_momo_ug/${forged}`, claim(forged))).status).toBe(200);
    // The forged claim was handled first: once the other collection's result shows, so would its.
    expect(await notifyUntilFinal(`mtn_momo_ug/${silent}`, silent, { garbage: true })).toBe('COMPLETED');
    expect(await statusOf(forged)).toBe('PENDING');
  });

  it('still takes a notification at a path issued before paths named the provider_code', async () => {
    const silent = await prompted('256772000005');
    expect(await notifyUntilFinal(`momo/${silent}`, silent, {})).toBe('COMPLETED');
  });

  it('answers 404 for a provider_code or a reference it does not know', async () => {
    const ref = await prompted('256772000004');
    expect((await notify('POST', `mpesa_ke/${ref}`, {})).status).toBe(404);
    expect((await notify('POST', 'card_ug/not-a-reference', {})).status).toBe(404);
    expect(await statusOf(ref)).toBe('PENDING');
  });
});
