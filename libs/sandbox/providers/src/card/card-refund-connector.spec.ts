/**
 * The card connector's refunds against the sandbox served on 127.0.0.1: a refund of a paid checkout, in parts, each
 * notified; more than is left refused; a repeated reference answered with the same refund and counted.
 */
import { randomUUID } from 'node:crypto';
import { ProviderRequestError, type RefundOperations } from '@paygate/connectors';
import { eventually, payOnCheckoutPage } from '@paygate/testing';
import { serveSandbox, type ServedSandbox } from '../sandbox-app-test-setup';

let sandbox: ServedSandbox;
let refund: RefundOperations;

beforeAll(async () => {
  sandbox = await serveSandbox({ SANDBOX_LATENCY_MS: '20' });
  refund = sandbox.registry().get('card_ug', 'refund').refund;
});
afterAll(() => sandbox?.close());

/** A card collection of UGX 81,000 paid on the checkout page; its reference. */
async function paid(): Promise<string> {
  const reference = `PG${randomUUID()}`;
  const collect = sandbox.registry().get('card_ug', 'collect').collect;
  const { providerReference, paymentUrl } = await collect.initiate({
    reference,
    amount: '81000',
    currency: 'UGX',
    description: 'Order 42',
    payerMessage: 'Order 42',
    payeeNote: 'Kampala Books',
    expiresAt: new Date(Date.now() + 3600_000).toISOString(),
    notifyUrl: `${sandbox.receiver.url}/collections`,
    returnUrl: 'https://merchant.example/return',
  });
  await payOnCheckoutPage(paymentUrl!, { number: '4242 4242 4242 4242' });
  expect((await collect.status(providerReference)).status).toBe('SUCCESSFUL');
  return reference;
}

const refundOf = (collectionReference: string, amount: string) => ({
  reference: `refund-${randomUUID()}`,
  collectionReference,
  amount,
  currency: 'UGX',
  payerMessage: 'Refund of order 42',
  payeeNote: 'Returned goods',
  notifyUrl: `${sandbox.receiver.url}/refunds`,
});

it('refunds a paid card collection in parts, each completed and notified, and refuses more than is left', async () => {
  const collection = await paid();
  const parts = [refundOf(collection, '60000'), refundOf(collection, '21000')];
  for (const part of parts) await refund.send(part);
  for (const { reference } of parts) {
    const outcome = await eventually(
      async () => {
        const status = await refund.status(reference);
        return status.status === 'PENDING' ? undefined : status;
      },
      10_000,
      'the refund',
    );
    expect(outcome).toEqual({ status: 'SUCCESSFUL', providerTransactionId: expect.stringMatching(/^re_/) });
    await eventually(
      () =>
        sandbox.receiver.received.find(
          (callback) => callback.path === '/refunds' && refund.verifyNotification(callback.body) === reference,
        ),
      10_000,
      'the notification',
    );
  }
  await expect(refund.send(refundOf(collection, '1'))).rejects.toThrow(
    new ProviderRequestError('card', 400, 'amount_too_large'),
  );
});

it('answers a repeated reference with the refund it made, and the sandbox counts both requests', async () => {
  const request = refundOf(await paid(), '81000');
  await refund.send(request);
  await refund.send(request);
  const { body } = await sandbox.admin(`/sandbox/v1/money-out/${request.reference}`);
  expect(body.data).toEqual({
    kind: 'refund',
    provider: 'card',
    reference: request.reference,
    requests_received: 2,
    status: expect.stringMatching(/^(PENDING|SUCCESSFUL)$/),
  });
});

it('answers NOT_FOUND for a refund it never received, and refuses one of an unpaid collection', async () => {
  expect(await refund.status(`refund-${randomUUID()}`)).toEqual({ status: 'NOT_FOUND' });
  await expect(refund.send(refundOf(`PG${randomUUID()}`, '100'))).rejects.toThrow(
    new ProviderRequestError('card', 404, 'resource_missing'),
  );
});
