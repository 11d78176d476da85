import type { Bill, ConnectorRegistry } from '@paygate/connectors';
import { billPaymentConnectorConformance } from '@paygate/testing';
import { SANDBOX_SECRETS, startSandbox, type SandboxHarness } from './sandbox-harness';

/** The biller connector (protocol `biller`) against the sandbox biller, through the registry and the port. */

/** The PRN every sandbox starts with, as the connector must describe it (amounts in minor units). */
const SEEDED_BILL: Bill = {
  prn: '2250000001301',
  amount: 25_000,
  currency: 'UGX',
  status: 'AVAILABLE',
  expiresAt: '2099-12-31T23:59:59.000Z',
  payerName: 'Nakato Sarah',
  serviceName: 'URA - Domestic Tax',
};

describe('ura_prn_ug: the biller connector against the sandbox biller', () => {
  let sandbox: SandboxHarness;
  let registry: ConnectorRegistry;

  beforeAll(async () => {
    sandbox = await startSandbox('biller-connector-test');
    registry = sandbox.registry();
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  /** The admin API's answer, which must be a success. */
  const admin = async (method: string, path: string, body?: unknown) => {
    const answer = await sandbox.admin(method, path, body);
    expect(answer.body).toMatchObject({ code: answer.status, status: 'success' });
    return answer.body.data;
  };

  billPaymentConnectorConformance({
    providerCode: 'ura_prn_ug',
    registry: () => registry,
    registryAt: (baseUrl, timeoutMs) =>
      sandbox.registry({ BILLER_API_URL: baseUrl, PROVIDER_TIMEOUT_MS: String(timeoutMs) }),
    registryWithCredential: (credential) => sandbox.registry({ BILLER_API_KEY: credential }),
    knownBill: SEEDED_BILL,
    createBill: async ({ amount = 25_000, currency = 'UGX', ...fields } = {}) => {
      // The admin API takes amounts in major units, as the biller shows them; UGX has no minor unit.
      const created = await admin('POST', '/sandbox/v1/prns', {
        amount: currency === 'UGX' ? amount : amount / 100,
        currency,
        ...(fields.status && { status: fields.status }),
        ...(fields.expiresAt && { expires_at: fields.expiresAt }),
        payer_name: 'Conformance Payer',
        service_name: 'URA - Conformance',
      });
      return {
        prn: created.prn as string,
        amount,
        currency,
        status: created.status as Bill['status'],
        expiresAt: created.expires_at as string,
        payerName: 'Conformance Payer',
        serviceName: 'URA - Conformance',
      };
    },
    paymentCalls: async (prn) => {
      const data = await admin('GET', `/sandbox/v1/prns/${prn}`);
      return { calls: data.payment_calls as number, payments: (data.payments as unknown[]).length };
    },
    injectFaults: async ({ failNext = 0, delayMs = 0 }) => {
      await admin('PUT', '/sandbox/v1/biller/faults', { fail_next: failNext, delay_ms: delayMs });
    },
    secrets: SANDBOX_SECRETS,
  });

  describe('biller specifics', () => {
    const bills = () => registry.get('ura_prn_ug', 'billPayment').billPayment;

    it('sends the API key, the Idempotency-Key and the amount in major units the biller takes', async () => {
      const captured = registryAt(sandbox.receiver.url);
      await expect(
        captured.pay({
          prn: '2250000001301',
          amount: 25_000,
          currency: 'UGX',
          idempotencyKey: 'key-1',
          reference: 'PGREF1',
        }),
      ).rejects.toThrow();
      const [request] = sandbox.receiver.at('/pay-capture/v1/prns/2250000001301/payments');
      expect(request).toMatchObject({
        method: 'POST',
        headers: { 'x-api-key': 'sandbox-biller-key', 'idempotency-key': 'key-1', 'content-type': 'application/json' },
      });
      expect(JSON.parse(request.body)).toEqual({ amount: 25_000, currency: 'UGX', reference: 'PGREF1' });
    });

    it('names the biller and the status in errors, never a credential or the address', async () => {
      const failing = sandbox
        .registry({ BILLER_API_URL: `${sandbox.receiver.url}/down-biller`, PROVIDER_TIMEOUT_MS: '2000' })
        .get('ura_prn_ug', 'billPayment').billPayment;
      await expect(failing.validate('2250000001301')).rejects.toThrow(/^biller unavailable: HTTP 503$/);
    });

    it('pays the seeded PRN of a fresh sandbox, after which it is PAID', async () => {
      const payment = await bills().pay({
        prn: '2250000001301',
        amount: 25_000,
        currency: 'UGX',
        idempotencyKey: 'seeded-1',
        reference: 'PGSEEDED1',
      });
      expect(payment).toMatchObject({ status: 'SUCCESSFUL', prn: '2250000001301', amount: 25_000, currency: 'UGX' });
      expect(await bills().validate('2250000001301')).toEqual({
        found: true,
        bill: { ...SEEDED_BILL, status: 'PAID' },
      });
    });

    function registryAt(baseUrl: string) {
      return sandbox.registry({ BILLER_API_URL: `${baseUrl}/pay-capture` }).get('ura_prn_ug', 'billPayment')
        .billPayment;
    }
  });

  it('logs no credential', () => {
    const output = sandbox.logs.join('');
    for (const secret of SANDBOX_SECRETS) expect(output).not.toContain(secret);
  });
});
