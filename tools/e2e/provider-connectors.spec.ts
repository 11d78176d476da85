import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { INestApplication } from '@nestjs/common';
import { loadConfig } from '@paygate/config';
import { createLogger } from '@paygate/logging';
import { createHttpApp, openInfrastructure, type Infrastructure } from '@paygate/platform';
import { SandboxProvidersModule } from '@paygate/sandbox-providers';
import { eventually } from '@paygate/testing';
import { HttpCardConnector } from '../../libs/collections/service/src/providers/card-connector';
import { HttpMobileMoneyConnector } from '../../libs/collections/service/src/providers/momo-connector';
import {
  parseCardNotification,
  parseMobileMoneyCallback,
  ProviderRequestError,
  ProviderUnavailableError,
  readProviderConnectorConfig,
  type ProviderOutcome,
} from '../../libs/collections/service/src/providers/provider-connectors';
import { freePort } from './processes';

interface Received {
  method: string;
  path: string;
  body: string;
}

const TEST_CARDS = ['4242424242424242', '4000000000000002', '4000000000009995', '5555555555554444'];
const SECRETS = ['sandbox-key', 'sandbox-card-secret'];

describe('provider connectors against the sandbox providers', () => {
  let app: INestApplication;
  let infrastructure: Infrastructure;
  let url: string;
  let receiver: Server;
  let receiverUrl: string;
  let momo: HttpMobileMoneyConnector;
  let card: HttpCardConnector;
  const received: Received[] = [];
  /** Paths the receiver answers 503 to, and how many more times; paths under /down always fail. */
  const failing = new Map<string, number>();
  const logs: string[] = [];

  beforeAll(async () => {
    jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      logs.push(String(chunk));
      return true;
    });
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const path = request.url ?? '';
        const failuresLeft = failing.get(path) ?? 0;
        if (failuresLeft > 0) failing.set(path, failuresLeft - 1);
        received.push({ method: request.method ?? '', path, body });
        response.statusCode = failuresLeft > 0 || path.startsWith('/down') ? 503 : 200;
        response.end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;

    // Some tests read the sandbox's warnings: capture them whatever LOG_LEVEL CI runs with.
    const appConfig = loadConfig({ STORE_URL: 'pglite://memory', BROKER_URL: 'inproc://', SANDBOX_LATENCY_MS: '50', LOG_LEVEL: 'info' });
    const log = createLogger('provider-connectors-test', appConfig.logging.level);
    infrastructure = await openInfrastructure(appConfig.platform, 'provider-connectors-test', log);
    app = await createHttpApp([SandboxProvidersModule], { config: appConfig, infrastructure, log });
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');

    const config = readProviderConnectorConfig({}, url);
    momo = new HttpMobileMoneyConnector(config.mobileMoney);
    card = new HttpCardConnector(config.card);
  });

  afterAll(async () => {
    await app?.close();
    await infrastructure?.close();
    await new Promise((resolve) => receiver?.close(resolve));
    jest.restoreAllMocks();
  });

  const receivedAt = (path: string) => received.filter((r) => r.path === path);
  const firstAt = (path: string) => eventually(() => receivedAt(path)[0], 10_000, `a request to ${path}`);

  describe('mobile money (MoMo Collection API)', () => {
    const msisdn = (ending: string) => `25677200${ending}`;

    async function requestToPay(ending: string, referenceId: string = randomUUID()): Promise<string> {
      await momo.requestToPay({
        referenceId,
        amount: '81000',
        currency: 'UGX',
        msisdn: msisdn(ending),
        externalId: `ext-${referenceId}`,
        payerMessage: 'Order 42',
        payeeNote: 'Thank you',
        callbackUrl: `${receiverUrl}/momo/${referenceId}`,
      });
      return referenceId;
    }

    async function accessToken(): Promise<string> {
      const response = await fetch(`${url}/sandbox/momo/collection/token/`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from('user:key').toString('base64')}`, 'ocp-apim-subscription-key': 'sub' },
      });
      return ((await response.json()) as { access_token: string }).access_token;
    }

    const apiHeaders = (token: string) => ({
      authorization: `Bearer ${token}`,
      'ocp-apim-subscription-key': 'sub',
      'x-target-environment': 'sandbox',
      'content-type': 'application/json',
    });
    const validBody = { amount: '81000', currency: 'UGX', externalId: 'ext-1', payer: { partyIdType: 'MSISDN', partyId: '256772000001' }, payerMessage: 'm', payeeNote: 'n' };

    it('issues a token only for Basic credentials with a subscription key', async () => {
      const token = (headers: Record<string, string>) => fetch(`${url}/sandbox/momo/collection/token/`, { method: 'POST', headers });
      const basic = `Basic ${Buffer.from('user:key').toString('base64')}`;
      expect((await token({})).status).toBe(401);
      expect((await token({ authorization: basic })).status).toBe(401);
      expect((await token({ authorization: `Basic ${Buffer.from('user:').toString('base64')}`, 'ocp-apim-subscription-key': 'sub' })).status).toBe(401);
      const issued = await token({ authorization: basic, 'ocp-apim-subscription-key': 'sub' });
      expect(issued.status).toBe(200);
      expect(await issued.json()).toEqual({ access_token: expect.any(String), token_type: 'access_token', expires_in: 3600 });
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

    it('completes 0001 and calls back with the status representation', async () => {
      const referenceId = await requestToPay('0001');
      const callback = await firstAt(`/momo/${referenceId}`);
      expect(callback.method).toBe('PUT');
      expect(JSON.parse(callback.body)).toMatchObject({ amount: '81000', currency: 'UGX', externalId: `ext-${referenceId}`, status: 'SUCCESSFUL' });
      const parsed = parseMobileMoneyCallback(JSON.parse(callback.body));
      expect(parsed).toEqual({
        externalId: `ext-${referenceId}`,
        outcome: { status: 'SUCCESSFUL', providerTransactionId: expect.stringMatching(/^\d+$/), maskedAccount: '256772000001' },
      });
      expect(await momo.status(referenceId)).toEqual(parsed!.outcome);
    });

    it.each<[string, ProviderOutcome]>([
      ['0002', { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'NOT_ENOUGH_FUNDS' }],
      ['0003', { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'APPROVAL_REJECTED' }],
    ])('reports the outcome of %s by callback and status', async (ending, outcome) => {
      const referenceId = await requestToPay(ending);
      const callback = await firstAt(`/momo/${referenceId}`);
      expect(parseMobileMoneyCallback(JSON.parse(callback.body))).toEqual({ externalId: `ext-${referenceId}`, outcome });
      expect(await momo.status(referenceId)).toEqual(outcome);
    });

    it('leaves 0004 pending and never calls back', async () => {
      const unanswered = await requestToPay('0004');
      // A request made later that is answered shows the 0004 outcome would have been known by now.
      await firstAt(`/momo/${await requestToPay('0001')}`);
      expect(await momo.status(unanswered)).toEqual({ status: 'PENDING' });
      expect(receivedAt(`/momo/${unanswered}`)).toEqual([]);
    });

    it('completes 0005 without a callback, so only polling reveals it', async () => {
      const referenceId = await requestToPay('0005');
      const outcome = await eventually(async () => {
        const current = await momo.status(referenceId);
        return current.status === 'PENDING' ? undefined : current;
      });
      expect(outcome).toEqual({ status: 'SUCCESSFUL', providerTransactionId: expect.stringMatching(/^\d+$/), maskedAccount: '256772000005' });
      await firstAt(`/momo/${await requestToPay('0001')}`);
      expect(receivedAt(`/momo/${referenceId}`)).toEqual([]);
    });

    it('gives up on a callback after three retries, logging the host only', async () => {
      const referenceId = randomUUID();
      await momo.requestToPay({
        referenceId,
        amount: '81000',
        currency: 'UGX',
        msisdn: msisdn('0001'),
        externalId: `ext-${referenceId}`,
        payerMessage: '',
        payeeNote: '',
        callbackUrl: `${receiverUrl}/down/${referenceId}?token=callback-secret`,
      });
      const warning = await eventually(() => logs.find((line) => line.includes(referenceId) && line.includes('provider callback abandoned')), 15_000, 'the warning');
      expect(JSON.parse(warning)).toMatchObject({ level: 'warn', referenceId, host: new URL(receiverUrl).host, attempts: 4, lastStatus: 503 });
      expect(warning).not.toContain('callback-secret');
      expect(receivedAt(`/down/${referenceId}?token=callback-secret`)).toHaveLength(4);
    });

    it('treats a repeated reference id as accepted, while the API answers 409', async () => {
      const referenceId = await requestToPay('0001');
      await expect(requestToPay('0001', referenceId)).resolves.toBe(referenceId);
      const repeated = await fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay`, {
        method: 'POST',
        headers: { ...apiHeaders(await accessToken()), 'x-reference-id': referenceId },
        body: JSON.stringify(validBody),
      });
      expect(repeated.status).toBe(409);
      expect(await repeated.json()).toEqual({ code: 'RESOURCE_ALREADY_EXIST', message: expect.any(String) });
      await firstAt(`/momo/${referenceId}`);
      expect(receivedAt(`/momo/${referenceId}`)).toHaveLength(1);
    });

    it('answers malformed requests with MoMo error bodies', async () => {
      const token = await accessToken();
      const send = (referenceId: string, body: unknown) =>
        fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay`, { method: 'POST', headers: { ...apiHeaders(token), 'x-reference-id': referenceId }, body: JSON.stringify(body) });
      const badReference = await send('not-a-uuid', validBody);
      expect(badReference.status).toBe(400);
      expect(await badReference.json()).toMatchObject({ code: 'INVALID_REFERENCE_ID' });
      const badAmount = await send(randomUUID(), { ...validBody, amount: 81000 });
      expect(badAmount.status).toBe(400);
      expect(await badAmount.json()).toMatchObject({ code: 'INVALID_AMOUNT' });
      const unknown = await fetch(`${url}/sandbox/momo/collection/v1_0/requesttopay/${randomUUID()}`, { headers: apiHeaders(token) });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toMatchObject({ code: 'RESOURCE_NOT_FOUND' });
      await expect(
        momo.requestToPay({ referenceId: randomUUID(), amount: '81000', currency: 'ugx', msisdn: msisdn('0001'), externalId: 'x', payerMessage: '', payeeNote: '', callbackUrl: receiverUrl }),
      ).rejects.toEqual(expect.objectContaining({ name: 'ProviderRequestError', status: 400, code: 'INVALID_CURRENCY' }));
      await expect(momo.status(randomUUID())).rejects.toBeInstanceOf(ProviderRequestError);
    });

    it('fetches a new token once when the provider no longer knows the cached one', async () => {
      const referenceId = await requestToPay('0001');
      await firstAt(`/momo/${referenceId}`);
      await infrastructure.sql.query('delete from sandbox_momo_tokens');
      expect(await momo.status(referenceId)).toMatchObject({ status: 'SUCCESSFUL' });
    });

    it('reports an unreachable or failing provider as unavailable, naming no credentials', async () => {
      const config = readProviderConnectorConfig({ MOMO_API_URL: `http://127.0.0.1:${await freePort()}`, PROVIDER_TIMEOUT_MS: '2000' }, url);
      const unreachable = new HttpMobileMoneyConnector(config.mobileMoney).status(randomUUID());
      await expect(unreachable).rejects.toBeInstanceOf(ProviderUnavailableError);
      await expect(unreachable).rejects.toThrow('momo unavailable: no response');
      const failingConfig = readProviderConnectorConfig({ MOMO_API_URL: `${receiverUrl}/down-momo` }, url);
      await expect(new HttpMobileMoneyConnector(failingConfig.mobileMoney).status(randomUUID())).rejects.toThrow(/^momo unavailable: HTTP 503$/);
    });
  });

  describe('card checkout', () => {
    const nextYear = String((new Date().getUTCFullYear() + 1) % 100).padStart(2, '0');
    const returnUrlFor = (reference: string) => `https://merchant.example/return/${reference}?order=42`;

    async function openSession(reference = `ref-${randomUUID()}`, expiresInMs = 600_000) {
      const session = await card.createCheckoutSession({
        reference,
        amount: '25000',
        currency: 'UGX',
        description: 'Order <42>',
        notifyUrl: `${receiverUrl}/card/${reference}`,
        returnUrl: returnUrlFor(reference),
        expiresAt: new Date(Date.now() + expiresInMs).toISOString(),
      });
      return { ...session, reference };
    }

    const submit = (paymentUrl: string, fields: Record<string, string>) =>
      fetch(paymentUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });

    it('opens one session per open reference', async () => {
      const first = await openSession();
      expect(first.paymentUrl).toBe(`${url}/sandbox/card/checkout/${first.sessionId}`);
      const again = await openSession(first.reference);
      expect(again.sessionId).toBe(first.sessionId);
      expect(await card.status(first.sessionId)).toEqual({ status: 'PENDING' });
    });

    it('refuses the session API without a secret key', async () => {
      const response = await fetch(`${url}/sandbox/card/v1/checkout/sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({ error: { code: 'unauthorized' } });
    });

    it('serves a checkout page with the form a browser test can drive', async () => {
      const { paymentUrl, sessionId, reference } = await openSession();
      const page = await fetch(paymentUrl);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      for (const fragment of ['name="card_number"', 'id="card_number"', 'name="expiry"', 'id="expiry"', 'name="cvv"', 'id="cvv"', 'id="pay"', 'id="cancel"']) {
        expect(html).toContain(fragment);
      }
      expect(html).toContain('<form method="post"');
      expect(html).toContain(`action="${sessionId}/cancel"`);
      expect(html).toContain('UGX 25,000');
      expect(html).toContain(reference);
      expect(html).toContain('Order &lt;42&gt;');
    });

    it.each<[string, ProviderOutcome]>([
      ['4242 4242 4242 4242', { status: 'SUCCESSFUL', providerTransactionId: '', maskedAccount: '424242******4242' }],
      ['4000000000000002', { status: 'FAILED', reason: 'DECLINED', providerReason: 'card_declined' }],
      ['4000000000009995', { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'insufficient_funds' }],
      ['5555555555554444', { status: 'SUCCESSFUL', providerTransactionId: '', maskedAccount: '555555******4444' }],
    ])('pays with %s, notifies the merchant and redirects the browser', async (cardNumber, expected) => {
      const { paymentUrl, sessionId, reference } = await openSession();
      const outcome = expected.status === 'SUCCESSFUL' ? { ...expected, providerTransactionId: sessionId } : expected;
      const paid = await submit(paymentUrl, { card_number: cardNumber, expiry: `12/${nextYear}`, cvv: '123' });
      expect(paid.status).toBe(303);
      expect(paid.headers.get('location')).toBe(returnUrlFor(reference));

      const notification = await firstAt(`/card/${reference}`);
      expect(notification.method).toBe('POST');
      expect(notification.body).not.toContain(cardNumber.replace(/ /g, ''));
      const last4 = cardNumber.slice(-4);
      expect(JSON.parse(notification.body).card).toEqual({ last4, masked: expect.stringMatching(new RegExp(`^\\d{6}\\*{6}${last4}$`)) });
      expect(parseCardNotification(JSON.parse(notification.body))).toEqual({ sessionId, reference, outcome });
      expect(await card.status(sessionId)).toEqual(outcome);

      expect((await fetch(paymentUrl)).status).toBe(410);
      expect((await submit(paymentUrl, { card_number: cardNumber, expiry: `12/${nextYear}`, cvv: '123' })).status).toBe(410);
    });

    it('cancels, notifying without a card', async () => {
      const { paymentUrl, sessionId, reference } = await openSession();
      const cancelled = await fetch(`${paymentUrl}/cancel`, { method: 'POST', redirect: 'manual' });
      expect(cancelled.status).toBe(303);
      expect(cancelled.headers.get('location')).toBe(returnUrlFor(reference));
      const body = JSON.parse((await firstAt(`/card/${reference}`)).body);
      expect(body).toEqual({ session_id: sessionId, reference, status: 'cancelled' });
      const outcome = { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'cancelled' };
      expect(parseCardNotification(body)?.outcome).toEqual(outcome);
      expect(await card.status(sessionId)).toEqual(outcome);
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
      expect(await card.status(sessionId)).toEqual({ status: 'PENDING' });
      expect(receivedAt(`/card/${reference}`)).toEqual([]);
    });

    it('expires an unused session', async () => {
      const { paymentUrl, sessionId, reference } = await openSession(undefined, 300);
      const outcome = await eventually(async () => {
        const current = await card.status(sessionId);
        return current.status === 'PENDING' ? undefined : current;
      });
      expect(outcome).toEqual({ status: 'CANCELLED', reason: 'EXPIRED', providerReason: 'expired' });
      const page = await fetch(paymentUrl);
      expect(page.status).toBe(410);
      expect(await page.text()).toContain('expired');
      expect((await submit(paymentUrl, { card_number: '4242424242424242', expiry: `12/${nextYear}`, cvv: '123' })).status).toBe(410);
      expect((await openSession(reference)).sessionId).not.toBe(sessionId);
    });

    it('answers an unknown session with 404', async () => {
      const page = await fetch(`${url}/sandbox/card/checkout/cs_unknown`);
      expect(page.status).toBe(404);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      await expect(card.status('cs_unknown')).rejects.toEqual(expect.objectContaining({ name: 'ProviderRequestError', status: 404, code: 'resource_missing' }));
    });

    it('retries a notification the merchant did not accept', async () => {
      const { paymentUrl, reference } = await openSession();
      failing.set(`/card/${reference}`, 1);
      expect((await submit(paymentUrl, { card_number: '4242424242424242', expiry: `12/${nextYear}`, cvv: '123' })).status).toBe(303);
      await eventually(() => (receivedAt(`/card/${reference}`).length === 2 ? true : undefined), 10_000, 'the retried notification');
      expect(receivedAt(`/card/${reference}`).map((r) => JSON.parse(r.body).status)).toEqual(['succeeded', 'succeeded']);
    });

    it('reports a failing card provider as unavailable', async () => {
      const config = readProviderConnectorConfig({ CARD_API_URL: `${receiverUrl}/down-card` }, url);
      await expect(new HttpCardConnector(config.card).status('cs_any')).rejects.toThrow(/^card unavailable: HTTP 503$/);
    });
  });

  it('never stores or logs a card number or credential', async () => {
    const rows = JSON.stringify(await infrastructure.sql.query('select * from sandbox_card_sessions'));
    const momoRows = JSON.stringify(await infrastructure.sql.query('select * from sandbox_momo_requests'));
    const tokens = JSON.stringify(await infrastructure.sql.query('select * from sandbox_momo_tokens'));
    const output = logs.join('');
    for (const secret of [...TEST_CARDS, ...SECRETS]) {
      for (const text of [rows, momoRows, tokens, output]) expect(text).not.toContain(secret);
    }
    expect(rows).toContain('424242******4242');
  });
});
