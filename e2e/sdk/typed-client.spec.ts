import type { InProcessPaygate } from '@paygate/standalone';
import { PaygateClient, TEST_ADMIN_TOKEN, mobileMoneyRequest } from '@paygate/testing';
import { createPaygateClient, type components, type PaygateApi } from 'paygate-node';
import { startTestPaygate } from '../standalone/test-paygate';

type InitializeRequest = components['schemas']['InitializeCollectionDto'];

/**
 * The merchant package's typed client (openapi-fetch over the types generated from
 * docs/openapi.json) against a running gateway: a merchant's calls, typed by the document, and
 * the answers the validator of this suite checks against it as well.
 */
describe('the typed client (paygate-node)', () => {
  let paygate: InProcessPaygate;
  let api: PaygateApi;

  beforeAll(async () => {
    paygate = await startTestPaygate();
    const { merchant } = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Typed client merchant');
    api = createPaygateClient({ baseUrl: paygate.url, publicKey: merchant.publicKey, secretKey: merchant.secretKey });
  });

  afterAll(async () => {
    await paygate?.close();
  });

  it('initializes a collection and reads it back, typed by the document', async () => {
    const initialized = await api.POST('/v1/collections/initialize', {
      body: mobileMoneyRequest({ amount: 81_000 }) as InitializeRequest,
    });
    expect(initialized.response.status).toBe(202);
    const reference = initialized.data?.data.internal_reference;
    expect(reference).toMatch(/^PG[0-9A-Z]{24}$/);

    const read = await api.GET('/v1/collections/{internal_reference}', {
      params: { path: { internal_reference: reference! } },
    });
    expect(read.data?.data).toMatchObject({
      internal_reference: reference,
      request_amount: 81_000,
      transaction_status: 'PENDING',
    });
  });

  it('hands a refusal over as `error`, in the envelope the document declares', async () => {
    const missing = await api.GET('/v1/collections/{internal_reference}', {
      params: { path: { internal_reference: 'PG000000000000000000000000' } },
    });
    expect(missing.data).toBeUndefined();
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 404, status: 'error' });
  });
});
