import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { TransactionMethod } from '@paygate/contracts';
import { ConfigError } from '@paygate/config';
import {
  createConnectorRegistry,
  MissingCapabilityError,
  UnknownProviderError,
  type ConnectorCatalogueEntry,
  type ConnectorRegistry,
} from './index';
import type { CollectInitiateRequest, ProviderOutcome } from './port';

/** A provider stand-in on 127.0.0.1: records each request and answers with `answer`. */
interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

let server: Server;
let baseUrl: string;
const recorded: Recorded[] = [];
let answer: (request: Recorded) => { status: number; body?: unknown } = () => ({ status: 503 });

beforeAll(async () => {
  server = createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => (text += chunk));
    request.on('end', () => {
      const entry = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: text ? JSON.parse(text) : undefined,
      };
      recorded.push(entry);
      const { status, body } = answer(entry);
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(body === undefined ? '' : JSON.stringify(body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
});

beforeEach(() => {
  recorded.length = 0;
});

/** The configured catalogue, as the collections service hands it over (code, method, connector). */
const CATALOGUE: ConnectorCatalogueEntry[] = (
  JSON.parse(readFileSync(resolve(__dirname, '../../../config/providers.json'), 'utf8')) as {
    providers: Array<{ provider_code: string; transaction_method: TransactionMethod }>;
  }
).providers.map((entry) => ({ code: entry.provider_code, method: entry.transaction_method }));

const request = (overrides: Partial<CollectInitiateRequest> = {}): CollectInitiateRequest => ({
  reference: 'PG0000000000000000000000AB',
  amount: '81000',
  currency: 'UGX',
  msisdn: '256772000001',
  description: 'Order 42',
  payerMessage: 'Order 42',
  payeeNote: 'Thank you',
  notifyUrl: 'http://127.0.0.1:9/notify',
  returnUrl: 'https://merchant.example/return',
  expiresAt: '2030-01-01T00:00:00.000Z',
  ...overrides,
});

const MOMO_TOKEN = {
  status: 200,
  body: { access_token: 'issued-token', token_type: 'access_token', expires_in: 3600 },
};
const basic = (user: string, key: string) => `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`;

describe('the registry', () => {
  const registry = (entries: ConnectorCatalogueEntry[] = CATALOGUE) => createConnectorRegistry(entries, {}, baseUrl);

  it('maps every provider_code of config/providers.json to the connector of its transaction_method', () => {
    const configured = registry();
    expect(configured.providerCodes()).toEqual(['mtn_momo_ug', 'airtel_money_ug', 'card_ug']);
    expect(configured.get('mtn_momo_ug').protocol).toBe('momo');
    expect(configured.get('airtel_money_ug')).toBe(configured.get('mtn_momo_ug'));
    expect(configured.get('card_ug').protocol).toBe('card');
  });

  it("takes the entry's connector field over the transaction_method default", () => {
    const configured = registry([
      { code: 'momo_shaped_card', method: 'CARD', connector: 'momo' },
      { code: 'hosted_wallet', method: 'MOBILE_MONEY', connector: 'card' },
    ]);
    expect(configured.get('momo_shaped_card').protocol).toBe('momo');
    expect(configured.get('hosted_wallet').protocol).toBe('card');
  });

  it('refuses an unknown provider_code with an error that names it', () => {
    expect(() => registry().get('mpesa_ke')).toThrow(UnknownProviderError);
    expect(() => registry().get('mpesa_ke')).toThrow('no connector is configured for provider_code "mpesa_ke"');
  });

  it('refuses a capability the connector does not offer', () => {
    expect(registry().get('card_ug', 'collect').collect).toBeDefined();
    expect(() => registry().get('card_ug', 'billPayment')).toThrow(MissingCapabilityError);
    expect(() => registry().get('card_ug', 'billPayment')).toThrow(
      'the connector for provider_code "card_ug" offers no billPayment',
    );
  });

  it('refuses to build for an entry whose connector no library provides', () => {
    expect(() => registry([{ code: 'x', connector: 'mpesa' as never }])).toThrow(
      'provider_code "x" needs a connector: one of momo, card, biller, or a transaction_method',
    );
    expect(() => registry([{ code: 'y' }])).toThrow(/provider_code "y" needs a connector/);
    expect(() => registry([{ code: 'z', connector: 'toString' as never }])).toThrow(
      /provider_code "z" needs a connector/,
    );
  });

  it('refuses a code that two entries claim (a provider and a biller, say)', () => {
    expect(() => registry([...CATALOGUE, { code: 'card_ug', connector: 'biller' }])).toThrow(
      'provider_code "card_ug" appears twice',
    );
  });
});

describe('connector configuration', () => {
  const momo = (registry: ConnectorRegistry) => registry.get('mtn_momo_ug', 'collect').collect;
  const card = (registry: ConnectorRegistry) => registry.get('card_ug', 'collect').collect;

  it('defaults to the sandbox served by this process, with sandbox credentials', async () => {
    answer = (r) =>
      r.path.endsWith('/collection/token/')
        ? MOMO_TOKEN
        : r.path.includes('/card/')
          ? { status: 201, body: { id: 'cs_1', payment_url: `${baseUrl}/pay/cs_1` } }
          : { status: 202 };
    const registry = createConnectorRegistry(CATALOGUE, {}, `${baseUrl}/`);
    const initiated = await momo(registry).initiate(request());
    await card(registry).initiate(request());

    const [token, prompt, session] = recorded;
    expect(token).toMatchObject({
      method: 'POST',
      path: '/sandbox/momo/collection/token/',
      headers: {
        authorization: basic('sandbox-user', 'sandbox-key'),
        'ocp-apim-subscription-key': 'sandbox-subscription-key',
      },
    });
    expect(prompt).toMatchObject({
      method: 'POST',
      path: '/sandbox/momo/collection/v1_0/requesttopay',
      headers: {
        authorization: 'Bearer issued-token',
        'ocp-apim-subscription-key': 'sandbox-subscription-key',
        'x-target-environment': 'sandbox',
        'x-reference-id': initiated.providerReference,
        'x-callback-url': 'http://127.0.0.1:9/notify',
      },
      body: {
        amount: '81000',
        currency: 'UGX',
        externalId: 'PG0000000000000000000000AB',
        payer: { partyIdType: 'MSISDN', partyId: '256772000001' },
        payerMessage: 'Order 42',
        payeeNote: 'Thank you',
      },
    });
    expect(session).toMatchObject({
      method: 'POST',
      path: '/sandbox/card/v1/checkout/sessions',
      headers: { authorization: 'Bearer sandbox-card-secret' },
      body: {
        reference: 'PG0000000000000000000000AB',
        amount: '81000',
        currency: 'UGX',
        description: 'Order 42',
        notify_url: 'http://127.0.0.1:9/notify',
        return_url: 'https://merchant.example/return',
        expires_at: '2030-01-01T00:00:00.000Z',
      },
    });
  });

  it('talks to the provider and with the credentials the environment names', async () => {
    answer = (r) =>
      r.path.endsWith('/collection/token/')
        ? MOMO_TOKEN
        : { status: 200, body: r.path.includes('/card-live/') ? { status: 'open' } : { status: 'PENDING' } };
    const registry = createConnectorRegistry(
      CATALOGUE,
      {
        MOMO_API_URL: `${baseUrl}/momo-live/`,
        MOMO_API_USER: 'live-user',
        MOMO_API_KEY: 'live-key',
        MOMO_SUBSCRIPTION_KEY: 'live-subscription',
        MOMO_TARGET_ENVIRONMENT: 'mtnuganda',
        CARD_API_URL: `${baseUrl}/card-live`,
        CARD_SECRET_KEY: 'sk_live_1',
      },
      'http://127.0.0.1:1',
    );
    expect(await momo(registry).status('ref-1')).toEqual({ status: 'PENDING' });
    expect(await card(registry).status('cs_1')).toEqual({ status: 'PENDING' });
    const [token, status, session] = recorded;
    expect(token).toMatchObject({
      path: '/momo-live/collection/token/',
      headers: { authorization: basic('live-user', 'live-key'), 'ocp-apim-subscription-key': 'live-subscription' },
    });
    expect(status).toMatchObject({
      method: 'GET',
      path: '/momo-live/collection/v1_0/requesttopay/ref-1',
      headers: { 'x-target-environment': 'mtnuganda', 'ocp-apim-subscription-key': 'live-subscription' },
    });
    expect(session).toMatchObject({
      method: 'GET',
      path: '/card-live/v1/checkout/sessions/cs_1',
      headers: { authorization: 'Bearer sk_live_1' },
    });
  });

  it.each([
    [
      { MOMO_API_URL: 'ftp://user:hunter2@momo.example' },
      'MOMO_API_URL',
      /must be an http\(s\) URL, got "ftp:\/\/\*\*\*@momo.example"/,
    ],
    [{ CARD_API_URL: 'card.example' }, 'CARD_API_URL', /must be an http\(s\) URL/],
    [{ PROVIDER_TIMEOUT_MS: '0' }, 'PROVIDER_TIMEOUT_MS', /must be at least 1 millisecond, got "0"/],
    [{ PROVIDER_TIMEOUT_MS: '1.5' }, 'PROVIDER_TIMEOUT_MS', /got "1.5"/],
    [{ PROVIDER_TIMEOUT_MS: 'soon' }, 'PROVIDER_TIMEOUT_MS', /got "soon"/],
  ])('refuses %j, naming %s and no credential', (env, variable, message) => {
    const build = () => createConnectorRegistry(CATALOGUE, env, baseUrl);
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(expect.objectContaining({ variable }));
    expect(build).toThrow(message);
    expect(build).not.toThrow(/hunter2/);
  });
});

describe('normalised outcomes', () => {
  const connector = (providerCode: string) =>
    createConnectorRegistry(CATALOGUE, { MOMO_API_URL: baseUrl, CARD_API_URL: baseUrl }, baseUrl).get(
      providerCode,
      'collect',
    ).collect;
  const answering = (body: unknown) => {
    answer = (r) => (r.path === '/collection/token/' ? MOMO_TOKEN : { status: 200, body });
  };

  it.each<[string, unknown, ProviderOutcome]>([
    [
      'SUCCESSFUL',
      { status: 'SUCCESSFUL', financialTransactionId: '123', payer: { partyId: '256772000001' } },
      { status: 'SUCCESSFUL', providerTransactionId: '123', maskedAccount: '256772000001' },
    ],
    [
      'SUCCESSFUL without a transaction id (the reference stands in)',
      { status: 'SUCCESSFUL' },
      { status: 'SUCCESSFUL', providerTransactionId: 'ref-1' },
    ],
    [
      'NOT_ENOUGH_FUNDS',
      { status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' },
      { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'NOT_ENOUGH_FUNDS' },
    ],
    [
      'APPROVAL_REJECTED',
      { status: 'FAILED', reason: 'APPROVAL_REJECTED' },
      { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'APPROVAL_REJECTED' },
    ],
    [
      'COULD_NOT_PERFORM_TRANSACTION (prompt expired)',
      { status: 'FAILED', reason: 'COULD_NOT_PERFORM_TRANSACTION' },
      { status: 'CANCELLED', reason: 'EXPIRED', providerReason: 'COULD_NOT_PERFORM_TRANSACTION' },
    ],
    [
      'a reason in the older {code, message} shape',
      { status: 'FAILED', reason: { code: 'NOT_ENOUGH_FUNDS', message: 'x' } },
      { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'NOT_ENOUGH_FUNDS' },
    ],
    [
      'an unknown reason',
      { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR' },
      { status: 'FAILED', reason: 'OTHER', providerReason: 'INTERNAL_PROCESSING_ERROR' },
    ],
    ['no reason', { status: 'FAILED' }, { status: 'FAILED', reason: 'OTHER', providerReason: 'UNKNOWN' }],
  ])('MoMo %s', async (_name, body, outcome) => {
    answering(body);
    expect(await connector('mtn_momo_ug').status('ref-1')).toEqual(outcome);
  });

  it.each<[string, unknown, ProviderOutcome]>([
    [
      'succeeded',
      { status: 'succeeded', card: { last4: '4242', masked: '424242******4242' } },
      { status: 'SUCCESSFUL', providerTransactionId: 'cs_1', maskedAccount: '424242******4242' },
    ],
    [
      'succeeded with a card number that is not masked (dropped)',
      { status: 'succeeded', card: { masked: '4242424242424242' } },
      { status: 'SUCCESSFUL', providerTransactionId: 'cs_1' },
    ],
    [
      'card_declined',
      { status: 'failed', failure_code: 'card_declined' },
      { status: 'FAILED', reason: 'DECLINED', providerReason: 'card_declined' },
    ],
    [
      'insufficient_funds',
      { status: 'failed', failure_code: 'insufficient_funds' },
      { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'insufficient_funds' },
    ],
    [
      'another failure',
      { status: 'failed', failure_code: 'processing_error' },
      { status: 'FAILED', reason: 'OTHER', providerReason: 'processing_error' },
    ],
    ['a failure without a code', { status: 'failed' }, { status: 'FAILED', reason: 'OTHER', providerReason: 'failed' }],
    [
      'cancelled',
      { status: 'cancelled' },
      { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'cancelled' },
    ],
    ['expired', { status: 'expired' }, { status: 'CANCELLED', reason: 'EXPIRED', providerReason: 'expired' }],
  ])('card %s', async (_name, body, outcome) => {
    answering(body);
    expect(await connector('card_ug').status('cs_1')).toEqual(outcome);
  });

  it('finds the provider reference of a MoMo callback from the referenceId it names, else from our externalId', () => {
    const momo = connector('mtn_momo_ug');
    const reference = 'PG0000000000000000000000AB';
    expect(momo.verifyNotification({ referenceId: 'b2c1', externalId: reference, status: 'SUCCESSFUL' })).toBe('b2c1');
    expect(momo.verifyNotification({ externalId: reference, status: 'FAILED', reason: 'NOT_ENOUGH_FUNDS' })).toBe(
      momo.providerReferenceFor?.(reference),
    );
    expect(momo.verifyNotification({ externalId: reference, status: 'DONE' })).toBeNull();
  });

  it('finds the session of a card notification only when it names one, a reference and a known status', () => {
    const cardCollect = connector('card_ug');
    expect(cardCollect.verifyNotification({ session_id: 'cs_1', reference: 'PG1', status: 'succeeded' })).toBe('cs_1');
    expect(cardCollect.verifyNotification({ session_id: 'cs_1', status: 'succeeded' })).toBeNull();
    expect(cardCollect.verifyNotification({ session_id: 'cs_1', reference: 'PG1', status: 'refunded' })).toBeNull();
  });

  it('derives the MoMo reference of a reference as it always has, so collections in flight are still found', () => {
    const momo = connector('mtn_momo_ug');
    expect(momo.providerReferenceFor?.('PG0000000000000000000000AB')).toBe('1fba215b-69e4-4ec3-a532-d397768eabb1');
    expect(momo.providerReferenceFor?.('PG0000000000000000000000AC')).not.toBe('1fba215b-69e4-4ec3-a532-d397768eabb1');
    expect(connector('card_ug').providerReferenceFor).toBeUndefined();
  });
});
