/**
 * The card provider's refunds, simulated: of the charge a succeeded checkout session made under a payment reference,
 * in its currency, in parts never adding up to more than it; each succeeds and is notified; a repeated reference is
 * counted, never redone.
 */
import { randomUUID } from 'node:crypto';
import { describeOnAllSqlEngines } from '@paygate/testing';
import type { Background } from '../background';
import { ProviderApiError } from '../provider-api-error';
import { openSandbox, SteppedBackground, type SandboxUnderTest } from '../sandbox-test-setup';
import { CardRefundStore, type NewCardRefund } from './card-refund-store';
import { CardRefunds } from './card-refunds';
import { CardStore } from './card-store';

describeOnAllSqlEngines('the sandbox card refunds', 'sandbox_card_refunds', (open) => {
  let sandbox: SandboxUnderTest;
  let sessions: CardStore;
  let background: SteppedBackground;
  let refunds: CardRefunds;

  beforeAll(async () => {
    sandbox = await openSandbox({}, await open());
    sessions = new CardStore(sandbox.infrastructure);
  });
  afterAll(() => sandbox.close());
  beforeEach(() => {
    background = new SteppedBackground();
    refunds = new CardRefunds(
      new CardRefundStore(sandbox.infrastructure),
      background as unknown as Background,
      sandbox.config,
    );
  });

  /** A checkout session opened under a new payment reference, closed with `status`; the payment reference. */
  async function charge(status: 'succeeded' | 'failed' = 'succeeded'): Promise<string> {
    const reference = `PG${randomUUID()}`;
    const session = await sessions.open({
      reference,
      amount: '81000',
      currency: 'UGX',
      notifyUrl: 'http://127.0.0.1:9/collections',
      returnUrl: 'https://merchant.example/return',
      expiresAt: new Date(Date.now() + 3600_000),
    });
    await sessions.close(session.id, { status, card: { last4: '4242', masked: '424242******4242' } });
    return reference;
  }

  const request = (paymentReference: string, amount: string, fields: Partial<NewCardRefund> = {}) => ({
    reference: `refund-${randomUUID()}`,
    paymentReference,
    amount,
    currency: 'UGX',
    notifyUrl: 'http://127.0.0.1:9/refunds',
    ...fields,
  });

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => undefined,
      (error: unknown) => (error instanceof ProviderApiError ? { status: error.status, ...error.body } : error),
    );

  it('refunds a succeeded charge: pending, then succeeded and notified', async () => {
    const asked = request(await charge(), '81000');
    const { created, refund } = await refunds.refund(asked);
    expect(created).toBe(true);
    expect(refund).toMatchObject({ reference: asked.reference, status: 'pending', id: expect.stringMatching(/^re_/) });
    await background.runAll();
    expect(await refunds.find(asked.reference)).toMatchObject({ status: 'succeeded' });
    expect(background.callbacks).toEqual([
      {
        method: 'POST',
        url: 'http://127.0.0.1:9/refunds',
        body: expect.objectContaining({ refund_id: refund.id, reference: asked.reference, status: 'succeeded' }),
      },
    ]);
  });

  it('refunds in parts up to the charge, refuses more and records nothing for the refusal', async () => {
    const paymentReference = await charge();
    await refunds.refund(request(paymentReference, '50000'));
    const over = request(paymentReference, '31000.01');
    expect(await refusal(refunds.refund(over))).toEqual({
      status: 400,
      error: {
        code: 'amount_too_large',
        param: 'amount',
        message: 'the refund is more than is left of the charge: 31000.00 UGX',
      },
    });
    expect(await refunds.find(over.reference)).toBeUndefined();
    expect((await refunds.refund(request(paymentReference, '31000'))).created).toBe(true);
  });

  it('refuses a refund of no charge, of a failed one, or in another currency', async () => {
    expect(await refusal(refunds.refund(request('PG-unknown', '100')))).toMatchObject({
      status: 404,
      error: { code: 'resource_missing', param: 'payment_reference' },
    });
    expect(await refusal(refunds.refund(request(await charge('failed'), '100')))).toMatchObject({ status: 404 });
    expect(await refusal(refunds.refund(request(await charge(), '100', { currency: 'KES' })))).toMatchObject({
      status: 400,
      error: { code: 'parameter_invalid', param: 'currency' },
    });
  });

  it('answers a repeated reference with the refund it names, counted, nothing refunded again', async () => {
    const asked = request(await charge(), '81000');
    const first = await refunds.refund(asked);
    const again = await refunds.refund(asked);
    expect(again).toMatchObject({ created: false, refund: { id: first.refund.id, requestsReceived: 2 } });
    expect(background.pendingDelays).toHaveLength(1);
  });
});
