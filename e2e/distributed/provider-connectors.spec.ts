import { randomUUID } from 'node:crypto';
import {
  ProviderRequestError,
  type CollectInitiation,
  type ConnectorRegistry,
  type ProviderOutcome,
} from '@paygate/connectors';
import { collectConnectorConformance, payOnCheckoutPage, type CollectScenario } from '@paygate/testing';
import { SANDBOX_SECRETS, startSandbox, type SandboxHarness } from './sandbox-harness';

const MOMO_CODES = ['mtn_momo_ug', 'airtel_money_ug'];

/** MoMo sandbox outcomes by the last four digits of the payer's number. */
const MOMO_SCENARIOS: CollectScenario[] = [
  {
    name: 'SUCCESSFUL (0001)',
    request: () => ({ msisdn: '256772000001' }),
    expected: {
      status: 'SUCCESSFUL',
      providerTransactionId: expect.stringMatching(/^\d+$/),
      maskedAccount: '256772000001',
    },
    notifies: true,
  },
  {
    name: 'FAILED, insufficient funds (0002)',
    request: () => ({ msisdn: '256772000002' }),
    expected: { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'NOT_ENOUGH_FUNDS' },
    notifies: true,
  },
  {
    name: 'CANCELLED, payer declined (0003)',
    request: () => ({ msisdn: '256772000003' }),
    expected: { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'APPROVAL_REJECTED' },
    notifies: true,
  },
  {
    name: 'PENDING, prompt never answered (0004)',
    request: () => ({ msisdn: '256772000004' }),
    expected: { status: 'PENDING' },
    notifies: false,
  },
  {
    name: 'SUCCESSFUL without a callback (0005)',
    request: () => ({ msisdn: '256772000005' }),
    expected: {
      status: 'SUCCESSFUL',
      providerTransactionId: expect.stringMatching(/^\d+$/),
      maskedAccount: '256772000005',
    },
    notifies: false,
  },
];

const pay = (number: string) => async (initiation: CollectInitiation) => {
  await payOnCheckoutPage(initiation.paymentUrl!, { number });
};
const paid =
  (maskedAccount: string) =>
  (initiation: CollectInitiation): ProviderOutcome => ({
    status: 'SUCCESSFUL',
    providerTransactionId: initiation.providerReference,
    maskedAccount,
  });

/** Card sandbox outcomes by what the payer does on the checkout page. */
const CARD_SCENARIOS: CollectScenario[] = [
  {
    name: 'SUCCESSFUL (Visa 4242…)',
    act: pay('4242 4242 4242 4242'),
    expected: paid('424242******4242'),
    notifies: true,
  },
  {
    name: 'SUCCESSFUL (Mastercard 5555…)',
    act: pay('5555555555554444'),
    expected: paid('555555******4444'),
    notifies: true,
  },
  {
    name: 'FAILED, declined (…0002)',
    act: pay('4000000000000002'),
    expected: { status: 'FAILED', reason: 'DECLINED', providerReason: 'card_declined' },
    notifies: true,
  },
  {
    name: 'FAILED, insufficient funds (…9995)',
    act: pay('4000000000009995'),
    expected: { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS', providerReason: 'insufficient_funds' },
    notifies: true,
  },
  {
    name: 'CANCELLED, payer cancelled',
    act: async (initiation) => {
      await payOnCheckoutPage(initiation.paymentUrl!, { cancel: true });
    },
    expected: { status: 'CANCELLED', reason: 'CUSTOMER_DECLINED', providerReason: 'cancelled' },
    notifies: true,
  },
  {
    name: 'CANCELLED, session expired',
    request: () => ({ expiresAt: new Date(Date.now() + 300).toISOString() }),
    expected: { status: 'CANCELLED', reason: 'EXPIRED', providerReason: 'expired' },
    notifies: false,
  },
  { name: 'PENDING, page not yet used', expected: { status: 'PENDING' }, notifies: false },
];

const baseRequest = (msisdn?: string) => ({
  amount: '81000',
  currency: 'UGX',
  ...(msisdn && { msisdn }),
  description: 'Order <42>',
  payerMessage: 'Order 42',
  payeeNote: 'Thank you',
  returnUrl: 'https://merchant.example/return?order=42',
  expiresAt: new Date(Date.now() + 600_000).toISOString(),
});

describe('provider connectors against the sandbox providers', () => {
  let sandbox: SandboxHarness;
  let registry: ConnectorRegistry;

  beforeAll(async () => {
    sandbox = await startSandbox('provider-connectors-test');
    registry = sandbox.registry();
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  const registryAt = (baseUrl: string, timeoutMs: number) =>
    sandbox.registry({ MOMO_API_URL: baseUrl, CARD_API_URL: baseUrl, PROVIDER_TIMEOUT_MS: String(timeoutMs) });
  const count = async (sql: string, reference: string) =>
    Number((await sandbox.infrastructure.sql.query<{ n: number }>(sql, [reference]))[0].n);

  describe.each(MOMO_CODES)('%s: MoMo Collection API', (providerCode) => {
    collectConnectorConformance({
      providerCode,
      registry: () => registry,
      registryAt,
      request: () => baseRequest('256772000001'),
      scenarios: MOMO_SCENARIOS,
      sandboxInitiations: (reference) =>
        count('select count(*)::int as n from sandbox_momo_requests where external_id = $1', reference),
      handshake: (method, path) =>
        method === 'POST' && path === '/collection/token/'
          ? { status: 200, body: { access_token: 'fake-token', token_type: 'access_token', expires_in: 3600 } }
          : undefined,
      secrets: SANDBOX_SECRETS,
    });
  });

  describe('card_ug: card checkout API', () => {
    collectConnectorConformance({
      providerCode: 'card_ug',
      registry: () => registry,
      registryAt,
      request: () => baseRequest(),
      scenarios: CARD_SCENARIOS,
      sandboxInitiations: (reference) =>
        count('select count(*)::int as n from sandbox_card_sessions where reference = $1', reference),
      secrets: SANDBOX_SECRETS,
    });
  });

  describe('the registry', () => {
    it('maps both MoMo provider codes to one MoMo connector, card_ug to the card connector and the biller ura_prn_ug to the biller connector', () => {
      expect(registry.providerCodes()).toEqual(['mtn_momo_ug', 'airtel_money_ug', 'card_ug', 'ura_prn_ug']);
      expect(registry.get('ura_prn_ug', 'billPayment').protocol).toBe('biller');
      expect(registry.get('mtn_momo_ug')).toBe(registry.get('airtel_money_ug'));
      expect(registry.get('mtn_momo_ug').protocol).toBe('momo');
      expect(registry.get('card_ug').protocol).toBe('card');
    });
  });

  describe('MoMo specifics', () => {
    const momo = () => registry.get('mtn_momo_ug', 'collect').collect;
    const initiate = (msisdn: string, overrides: Record<string, string> = {}) =>
      momo().initiate({
        ...baseRequest(msisdn),
        reference: `PGTEST${randomUUID()}`,
        notifyUrl: `${sandbox.receiver.url}/momo`,
        ...overrides,
      });

    it('carries the provider error code of a rejected request, and a status query for it is rejected too', async () => {
      await expect(initiate('256772000001', { currency: 'ugx' })).rejects.toEqual(
        expect.objectContaining({ name: 'ProviderRequestError', status: 400, code: 'INVALID_CURRENCY' }),
      );
      await expect(initiate('256772000001', { amount: '-5' })).rejects.toEqual(
        expect.objectContaining({ status: 400, code: 'INVALID_AMOUNT' }),
      );
      await expect(momo().status(randomUUID())).rejects.toEqual(
        expect.objectContaining({ name: 'ProviderRequestError', status: 404, code: 'RESOURCE_NOT_FOUND' }),
      );
    });

    it('fetches a new token once when the provider no longer knows the cached one', async () => {
      const { providerReference } = await initiate('256772000001');
      await sandbox.infrastructure.sql.query('delete from sandbox_momo_tokens');
      await expect(momo().status(providerReference)).resolves.toEqual(
        expect.objectContaining({ status: expect.any(String) }),
      );
    });

    it('knows the provider reference of a reference before initiating, and it is the one initiate uses', async () => {
      const reference = `PGTEST${randomUUID()}`;
      const known = momo().providerReferenceFor?.(reference);
      expect(known).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(
        (
          await momo().initiate({
            ...baseRequest('256772000001'),
            reference,
            notifyUrl: `${sandbox.receiver.url}/momo`,
          })
        ).providerReference,
      ).toBe(known);
    });

    it('names the provider and the status in errors, never a credential or the address', async () => {
      const failing = registryAt(`${sandbox.receiver.url}/down-momo`, 2_000).get('airtel_money_ug', 'collect').collect;
      await expect(failing.status(randomUUID())).rejects.toThrow(/^momo unavailable: HTTP 503$/);
    });
  });

  describe('card specifics', () => {
    const card = () => registry.get('card_ug', 'collect').collect;

    it('carries the provider error code of a rejected request', async () => {
      await expect(card().status('cs_unknown')).rejects.toEqual(
        expect.objectContaining({ name: 'ProviderRequestError', status: 404, code: 'resource_missing' }),
      );
      const expired = card().initiate({
        ...baseRequest(),
        reference: `PGTEST${randomUUID()}`,
        notifyUrl: `${sandbox.receiver.url}/card`,
        expiresAt: '2000-01-01T00:00:00Z',
      });
      await expect(expired).rejects.toBeInstanceOf(ProviderRequestError);
      await expect(expired).rejects.toEqual(expect.objectContaining({ status: 400, code: 'parameter_invalid' }));
    });

    it('opens a session whose payment page is on the provider', async () => {
      const { paymentUrl, providerReference } = await card().initiate({
        ...baseRequest(),
        reference: `PGTEST${randomUUID()}`,
        notifyUrl: `${sandbox.receiver.url}/card`,
      });
      expect(paymentUrl).toBe(`${sandbox.url}/sandbox/card/checkout/${providerReference}`);
    });

    it('names the provider and the status in errors, never a credential or the address', async () => {
      const failing = registryAt(`${sandbox.receiver.url}/down-card`, 2_000).get('card_ug', 'collect').collect;
      await expect(failing.status('cs_any')).rejects.toThrow(/^card unavailable: HTTP 503$/);
    });
  });

  it('logs no credential', () => {
    const output = sandbox.logs.join('');
    for (const secret of SANDBOX_SECRETS) expect(output).not.toContain(secret);
  });
});
