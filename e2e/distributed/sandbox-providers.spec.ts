import { randomUUID } from 'node:crypto';
import type { CollectInitiateRequest, CollectOperations } from '@paygate/connectors';
import { eventually } from '@paygate/testing';
import { SANDBOX_SECRETS, startSandbox, type SandboxHarness } from './sandbox-harness';

/** What the sandbox does beyond the connector port: its own API rules, callbacks, checkout page and what it keeps. */

const TEST_CARDS = ['4242424242424242', '4000000000000002', '4000000000009995', '5555555555554444'];

describe('sandbox providers', () => {
  let sandbox: SandboxHarness;
  let url: string;

  beforeAll(async () => {
    sandbox = await startSandbox('sandbox-providers-test');
    url = sandbox.url;
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  const collect = (providerCode: string): CollectOperations => sandbox.registry().get(providerCode, 'collect').collect;
  const newReference = () => `PGTEST${randomUUID().replace(/-/g, '').slice(0, 20).toUpperCase()}`;
  const request = (
    reference: string,
    notifyUrl: string,
    overrides: Partial<CollectInitiateRequest> = {},
  ): CollectInitiateRequest => ({
    reference,
    amount: '81000',
    currency: 'UGX',
    description: 'Order <42>',
    payerMessage: 'Order 42',
    payeeNote: 'Thank you',
    notifyUrl,
    returnUrl: `https://merchant.example/return/${reference}?order=42`,
    expiresAt: new Date(Date.now() + 600_000).toISOString(),
    ...overrides,
  });

  describe('mobile money (MoMo Collection API)', () => {
    /** Asks for a payment from the test number ending `ending`; the sandbox calls back at /momo/<reference>. */
    async function requestToPay(ending: string, reference = newReference()) {
      const { providerReference } = await collect('mtn_momo_ug').initiate(
        request(reference, `${sandbox.receiver.url}/momo/${reference}`, { msisdn: `25677200${ending}` }),
      );
      return { reference, providerReference };
    }

    async function accessToken(): Promise<string> {
      const response = await fetch(`${url}/sandbox/momo/collection/token/`, {
        method: 'POST',
        headers: {
          authorization: `Basic ${Buffer.from('user:key').toString('base64')}`,
          'ocp-apim-subscription-key': 'sub',
        },
      });
      return ((await response.json()) as { access_token: string }).access_token;
    }

    const apiHeaders = (token: string) => ({
      authorization: `Bearer ${token}`,
      'ocp-apim-subscription-key': 'sub',
      'x-target-environment': 'sandbox',
      'content-type': 'application/json',
    });
    const validBody = {
      amount: '81000',
      currency: 'UGX',
      externalId: 'ext-1',
      payer: { partyIdType: 'MSISDN', partyId: '256772000001' },
      payerMessage: 'm',
      payeeNote: 'n',
    };

    it('issues a token only for Basic credentials with a subscription key', async () => {
      const token = (headers: Record<string, string>) =>
        fetch(`${url}/sandbox/momo/collection/token/`, { method: 'POST', headers });
      const basic = `Basic ${Buffer.from('user:key').toString('base64')}`;
      expect((await token({})).status).toBe(401);
      expect((await token({ authorization: basic })).status).toBe(401);
      expect(
        (
          await token({
            authorization: `Basic ${Buffer.from('user:').toString('base64')}`,
            'ocp-apim-subscription-key': 'sub',
          })
        ).status,
      ).toBe(401);
      const issued = await token({ authorization: basic, 'ocp-apim-subscription-key': 'sub' });
      expect(issued.status).toBe(200);
      expect(await issued.json()).toEqual({
        access_token: expect.any(String),
        token_type: 'access_token',
        expires_in: 3600,
      });
    });

    it('refuses requesttopay without a token it issued', async () => {
      const send = (token: string) =>
        fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay`, {
          method: 'POST',
          headers: { ...apiHeaders(token), 'x-reference-id': randomUUID() },
          body: JSON.stringify(validBody),
        });
      expect((await send('forged')).status).toBe(401);
      const unauthenticated = await fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay/${randomUUID()}`);
      expect(unauthenticated.status).toBe(401);
      expect(await unauthenticated.json()).toMatchObject({ code: expect.any(String) });
      expect((await send(await accessToken())).status).toBe(202);
    });

    it.each([
      [
        '0001',
        {
          status: 'SUCCESSFUL',
          financialTransactionId: expect.stringMatching(/^\d+$/),
          payer: { partyIdType: 'MSISDN', partyId: '256772000001' },
        },
      ],
      ['0002', { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' }],
      ['0003', { status: 'FAILED', reason: 'APPROVAL_REJECTED' }],
    ])('calls back once with the status representation of %s', async (ending, outcome) => {
      const { reference, providerReference } = await requestToPay(ending);
      const callback = await sandbox.receiver.first(`/momo/${reference}`);
      expect(callback.method).toBe('PUT');
      expect(JSON.parse(callback.body)).toMatchObject({
        amount: '81000',
        currency: 'UGX',
        externalId: reference,
        payerMessage: 'Order 42',
        payeeNote: 'Thank you',
        ...outcome,
      });
      expect(collect('mtn_momo_ug').verifyNotification(JSON.parse(callback.body))).toBe(providerReference);
      await requestToPay('0001').then(({ reference: later }) => sandbox.receiver.first(`/momo/${later}`));
      expect(sandbox.receiver.at(`/momo/${reference}`)).toHaveLength(1);
    });

    it('leaves 0004 pending and never calls back', async () => {
      const unanswered = await requestToPay('0004');
      // A request made later that is answered shows the 0004 outcome would have been known by now.
      const later = await requestToPay('0001');
      await sandbox.receiver.first(`/momo/${later.reference}`);
      expect(await collect('mtn_momo_ug').status(unanswered.providerReference)).toEqual({ status: 'PENDING' });
      expect(sandbox.receiver.at(`/momo/${unanswered.reference}`)).toEqual([]);
    });

    it('completes 0005 without a callback, so only polling reveals it', async () => {
      const silent = await requestToPay('0005');
      await eventually(async () =>
        (await collect('mtn_momo_ug').status(silent.providerReference)).status === 'SUCCESSFUL' ? true : undefined,
      );
      const later = await requestToPay('0001');
      await sandbox.receiver.first(`/momo/${later.reference}`);
      expect(sandbox.receiver.at(`/momo/${silent.reference}`)).toEqual([]);
    });

    it('gives up on a callback after three retries, logging the host only', async () => {
      const reference = newReference();
      const { providerReference } = await collect('mtn_momo_ug').initiate(
        request(reference, `${sandbox.receiver.url}/down/${reference}?token=callback-secret`, {
          msisdn: '256772000001',
          payerMessage: '',
          payeeNote: '',
        }),
      );
      const warning = await eventually(
        () =>
          sandbox.logs.find((line) => line.includes(providerReference) && line.includes('provider callback abandoned')),
        15_000,
        'the warning',
      );
      expect(JSON.parse(warning)).toMatchObject({
        level: 'warn',
        referenceId: providerReference,
        host: new URL(sandbox.receiver.url).host,
        attempts: 4,
        lastStatus: 503,
      });
      expect(warning).not.toContain('callback-secret');
      expect(sandbox.receiver.at(`/down/${reference}?token=callback-secret`)).toHaveLength(4);
    });

    it('answers a repeated reference id 409, so a retried prompt is never a second prompt', async () => {
      const { reference, providerReference } = await requestToPay('0001');
      const repeated = await fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay`, {
        method: 'POST',
        headers: { ...apiHeaders(await accessToken()), 'x-reference-id': providerReference },
        body: JSON.stringify(validBody),
      });
      expect(repeated.status).toBe(409);
      expect(await repeated.json()).toEqual({ code: 'RESOURCE_ALREADY_EXIST', message: expect.any(String) });
      await sandbox.receiver.first(`/momo/${reference}`);
      expect(sandbox.receiver.at(`/momo/${reference}`)).toHaveLength(1);
    });

    it('answers malformed requests with MoMo error bodies', async () => {
      const token = await accessToken();
      const send = (referenceId: string, body: unknown) =>
        fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay`, {
          method: 'POST',
          headers: { ...apiHeaders(token), 'x-reference-id': referenceId },
          body: JSON.stringify(body),
        });
      const badReference = await send('not-a-uuid', validBody);
      expect(badReference.status).toBe(400);
      expect(await badReference.json()).toMatchObject({ code: 'INVALID_REFERENCE_ID' });
      const badAmount = await send(randomUUID(), { ...validBody, amount: 81000 });
      expect(badAmount.status).toBe(400);
      expect(await badAmount.json()).toMatchObject({ code: 'INVALID_AMOUNT' });
      const unknown = await fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay/${randomUUID()}`, {
        headers: apiHeaders(token),
      });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
    });
  });

  describe('card checkout', () => {
    const nextYear = String((new Date().getUTCFullYear() + 1) % 100).padStart(2, '0');
    const returnUrlFor = (reference: string) => `https://merchant.example/return/${reference}?order=42`;

    async function openSession(reference = newReference(), expiresInMs = 600_000) {
      const notifyUrl = `${sandbox.receiver.url}/card/${reference}`;
      const { providerReference: sessionId, paymentUrl } = await collect('card_ug').initiate(
        request(reference, notifyUrl, { amount: '25000', expiresAt: new Date(Date.now() + expiresInMs).toISOString() }),
      );
      return { sessionId, paymentUrl: paymentUrl!, reference };
    }

    const submit = (paymentUrl: string, fields: Record<string, string>) =>
      fetch(paymentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });

    it('refuses the session API without a secret key', async () => {
      const response = await fetch(`${url}/sandbox/card/v1/checkout/sessions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    });

    it('serves a checkout page with the form a browser test can drive', async () => {
      const { paymentUrl, sessionId, reference } = await openSession();
      const page = await fetch(paymentUrl);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      for (const fragment of [
        'name="card_number"',
        'id="card_number"',
        'name="expiry"',
        'id="expiry"',
        'name="cvv"',
        'id="cvv"',
        'id="pay"',
        'id="cancel"',
      ]) {
        expect(html).toContain(fragment);
      }
      expect(html).toContain('<form method="post"');
      expect(html).toContain(`action="${sessionId}/cancel"`);
      expect(html).toContain('UGX 25,000');
      expect(html).toContain(reference);
      expect(html).toContain('Order &lt;42&gt;');
    });

    it.each(['4242 4242 4242 4242', '4000000000000002', '4000000000009995', '5555555555554444'])(
      'pays with %s, notifies with a masked card only, redirects the browser and closes the page',
      async (cardNumber) => {
        const { paymentUrl, sessionId, reference } = await openSession();
        const paid = await submit(paymentUrl, { card_number: cardNumber, expiry: `12/${nextYear}`, cvv: '123' });
        expect(paid.status).toBe(303);
        expect(paid.headers.get('location')).toBe(returnUrlFor(reference));

        const notification = await sandbox.receiver.first(`/card/${reference}`);
        expect(notification.method).toBe('POST');
        expect(notification.body).not.toContain(cardNumber.replace(/ /g, ''));
        const last4 = cardNumber.slice(-4);
        expect(JSON.parse(notification.body)).toMatchObject({
          session_id: sessionId,
          reference,
          card: { last4, masked: expect.stringMatching(new RegExp(`^\\d{6}\\*{6}${last4}$`)) },
        });
        expect(collect('card_ug').verifyNotification(JSON.parse(notification.body))).toBe(sessionId);

        expect((await fetch(paymentUrl)).status).toBe(410);
        expect(
          (await submit(paymentUrl, { card_number: cardNumber, expiry: `12/${nextYear}`, cvv: '123' })).status,
        ).toBe(410);
      },
    );

    it('cancels, notifying without a card', async () => {
      const { paymentUrl, sessionId, reference } = await openSession();
      const cancelled = await fetch(`${paymentUrl}/cancel`, { method: 'POST', redirect: 'manual' });
      expect(cancelled.status).toBe(303);
      expect(cancelled.headers.get('location')).toBe(returnUrlFor(reference));
      const body = JSON.parse((await sandbox.receiver.first(`/card/${reference}`)).body);
      expect(body).toEqual({ session_id: sessionId, reference, status: 'cancelled' });
      expect(await collect('card_ug').status(sessionId)).toEqual({
        status: 'CANCELLED',
        reason: 'CUSTOMER_DECLINED',
        providerReason: 'cancelled',
      });
    });

    it('re-renders an invalid form with what to fix, never echoing the card number', async () => {
      const { paymentUrl, sessionId, reference } = await openSession();
      for (const fields of [
        { card_number: '4242424242424241', expiry: `12/${nextYear}`, cvv: '123' },
        { card_number: '4242424242424242', expiry: '01/20', cvv: '123' },
        { card_number: '4242424242424242', expiry: `12/${nextYear}`, cvv: '12' },
      ]) {
        const rejected = await submit(paymentUrl, fields);
        expect(rejected.status).toBe(400);
        expect(rejected.headers.get('content-type')).toMatch(/^text\/html/);
        const html = await rejected.text();
        expect(html).toContain('role="alert"');
        expect(html).toContain('id="card_number"');
        expect(html).not.toContain(fields.card_number);
      }
      expect(await collect('card_ug').status(sessionId)).toEqual({ status: 'PENDING' });
      expect(sandbox.receiver.at(`/card/${reference}`)).toEqual([]);
    });

    it('expires an unused session: the page is gone and the reference gets a new session', async () => {
      const { paymentUrl, sessionId, reference } = await openSession(undefined, 300);
      await eventually(async () =>
        (await collect('card_ug').status(sessionId)).status === 'CANCELLED' ? true : undefined,
      );
      const page = await fetch(paymentUrl);
      expect(page.status).toBe(410);
      expect(await page.text()).toContain('expired');
      expect(
        (await submit(paymentUrl, { card_number: '4242424242424242', expiry: `12/${nextYear}`, cvv: '123' })).status,
      ).toBe(410);
      expect((await openSession(reference)).sessionId).not.toBe(sessionId);
    });

    it('answers an unknown session page with 404', async () => {
      const page = await fetch(`${url}/sandbox/card/checkout/cs_unknown`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    });

    it('retries a notification the merchant did not accept', async () => {
      const { paymentUrl, reference } = await openSession();
      sandbox.receiver.failing.set(`/card/${reference}`, 1);
      expect(
        (await submit(paymentUrl, { card_number: '4242424242424242', expiry: `12/${nextYear}`, cvv: '123' })).status,
      ).toBe(303);
      await eventually(
        () => (sandbox.receiver.at(`/card/${reference}`).length === 2 ? true : undefined),
        10_000,
        'the retried notification',
      );
      expect(sandbox.receiver.at(`/card/${reference}`).map((r) => JSON.parse(r.body).status)).toEqual([
        'succeeded',
        'succeeded',
      ]);
    });
  });

  it('never stores or logs a card number or credential', async () => {
    const rows = JSON.stringify(await sandbox.infrastructure.sql.query('select * from sandbox_card_sessions'));
    const momoRows = JSON.stringify(await sandbox.infrastructure.sql.query('select * from sandbox_momo_requests'));
    const tokens = JSON.stringify(await sandbox.infrastructure.sql.query('select * from sandbox_momo_tokens'));
    const output = sandbox.logs.join('');
    for (const secret of [...TEST_CARDS, ...SANDBOX_SECRETS]) {
      for (const text of [rows, momoRows, tokens, output]) expect(text).not.toContain(secret);
    }
    expect(rows).toContain('424242******4242');
  });
});
