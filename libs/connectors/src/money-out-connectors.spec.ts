/**
 * The money-out connectors (MoMo Disbursement payouts and refunds, card refunds) against a provider stand-in on
 * 127.0.0.1: what they send, and how they read each answer. The sandbox's outcomes through these connectors are
 * specified in libs/sandbox/providers (money-out/*.spec.ts).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createConnectorRegistry,
  MissingCapabilityError,
  ProviderRequestError,
  ProviderUnavailableError,
} from './index';
import { momoReferenceId, momoRefundReferenceId, momoTransferReferenceId } from './momo/momo-protocol';
import type { MoneyOutOutcome, PayoutRequest, RefundRequest } from './port';

interface Recorded {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: unknown;
}

let server: Server;
let baseUrl: string;
const recorded: Recorded[] = [];
/** undefined: the stand-in never answers (a provider that times out). */
let answer: (request: Recorded) => { status: number; body?: unknown } | undefined = () => ({ status: 503 });

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
      const answered = answer(entry);
      if (!answered) return;
      response
        .writeHead(answered.status, { 'content-type': 'application/json' })
        .end(answered.body === undefined ? '' : JSON.stringify(answered.body));
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

const CATALOGUE = [
  { code: 'mtn_momo_ug', method: 'MOBILE_MONEY' as const },
  { code: 'card_ug', method: 'CARD' as const },
];
const registry = (env: Record<string, string> = {}) =>
  createConnectorRegistry(CATALOGUE, { MOMO_API_URL: baseUrl, CARD_API_URL: baseUrl, ...env }, baseUrl);
const payout = (env?: Record<string, string>) => registry(env).get('mtn_momo_ug', 'payout').payout;
const momoRefund = (env?: Record<string, string>) => registry(env).get('mtn_momo_ug', 'refund').refund;
const cardRefund = () => registry().get('card_ug', 'refund').refund;

const TOKEN = {
  status: 200,
  body: { access_token: 'disbursement-token', token_type: 'access_token', expires_in: 3600 },
};
const isToken = (r: Recorded) => r.path.endsWith('/token/');
const withToken = (rest: (r: Recorded) => { status: number; body?: unknown } | undefined) => (r: Recorded) =>
  isToken(r) ? TOKEN : rest(r);

const PAYOUT: PayoutRequest = {
  reference: 'payout-2026-0001',
  amount: '50000',
  currency: 'UGX',
  msisdn: '256772000001',
  payerMessage: 'Kampala Books payout',
  payeeNote: 'Weekly settlement',
  notifyUrl: 'http://127.0.0.1:9/payouts/notify',
};
const REFUND: RefundRequest = {
  reference: 'refund-2026-0001',
  collectionReference: 'PG0000000000000000000000AB',
  amount: '20000',
  currency: 'UGX',
  payerMessage: 'Refund of order 42',
  payeeNote: 'Returned goods',
  notifyUrl: 'http://127.0.0.1:9/refunds/notify',
};

describe('the registry', () => {
  it('offers payouts and refunds for MoMo, refunds only for cards', () => {
    expect(registry().get('mtn_momo_ug', 'payout').payout).toBeDefined();
    expect(registry().get('mtn_momo_ug', 'refund').refund.partial).toBe(true);
    expect(registry().get('card_ug', 'refund').refund.partial).toBe(true);
    expect(() => registry().get('card_ug', 'payout')).toThrow(MissingCapabilityError);
  });
});

describe('MoMo Disbursement', () => {
  it('sends a payout as a transfer with an X-Reference-Id of its own, our reference as externalId', async () => {
    answer = withToken(() => ({ status: 202 }));
    await payout().send(PAYOUT);
    const [token, transfer] = recorded;
    expect(token).toMatchObject({
      method: 'POST',
      path: '/disbursement/token/',
      headers: {
        authorization: `Basic ${Buffer.from('sandbox-user:sandbox-key').toString('base64')}`,
        'ocp-apim-subscription-key': 'sandbox-subscription-key',
      },
    });
    expect(transfer).toMatchObject({
      method: 'POST',
      path: '/disbursement/v1_0/transfer',
      headers: {
        authorization: 'Bearer disbursement-token',
        'x-target-environment': 'sandbox',
        'x-reference-id': momoTransferReferenceId(PAYOUT.reference),
        'x-callback-url': PAYOUT.notifyUrl,
      },
      body: {
        amount: '50000',
        currency: 'UGX',
        externalId: PAYOUT.reference,
        payee: { partyIdType: 'MSISDN', partyId: '256772000001' },
        payerMessage: PAYOUT.payerMessage,
        payeeNote: PAYOUT.payeeNote,
      },
    });
  });

  it('refunds through v2_0/refund, naming the collection by the X-Reference-Id it was requested with', async () => {
    answer = withToken(() => ({ status: 202 }));
    await momoRefund().send(REFUND);
    expect(recorded[1]).toMatchObject({
      method: 'POST',
      path: '/disbursement/v2_0/refund',
      headers: { 'x-reference-id': momoRefundReferenceId(REFUND.reference), 'x-callback-url': REFUND.notifyUrl },
      body: {
        amount: '20000',
        currency: 'UGX',
        externalId: REFUND.reference,
        payerMessage: REFUND.payerMessage,
        payeeNote: REFUND.payeeNote,
        referenceIdToRefund: momoReferenceId(REFUND.collectionReference),
      },
    });
  });

  it('derives X-Reference-Ids that never collide across a collection, a payout and a refund of one reference', () => {
    const ids = new Set([momoReferenceId('ref-1'), momoTransferReferenceId('ref-1'), momoRefundReferenceId('ref-1')]);
    expect(ids.size).toBe(3);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(momoTransferReferenceId('ref-1')).toBe(momoTransferReferenceId('ref-1'));
  });

  it('uses the Disbursement subscription key when one is set, and one token for payouts and refunds', async () => {
    answer = withToken(() => ({ status: 202 }));
    const momo = registry({ MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: 'disbursement-subscription' }).get('mtn_momo_ug');
    await momo.payout!.send(PAYOUT);
    await momo.refund!.send(REFUND);
    expect(recorded.filter(isToken)).toHaveLength(1);
    for (const request of recorded)
      expect(request.headers['ocp-apim-subscription-key']).toBe('disbursement-subscription');
  });

  it('takes 409 (the X-Reference-Id used before) as accepted, and refuses on any other 4xx', async () => {
    answer = withToken(() => ({ status: 409, body: { code: 'RESOURCE_ALREADY_EXIST' } }));
    await expect(payout().send(PAYOUT)).resolves.toBeUndefined();
    await expect(momoRefund().send(REFUND)).resolves.toBeUndefined();
    answer = withToken(() => ({ status: 400, body: { code: 'INVALID_AMOUNT', message: 'x' } }));
    await expect(payout().send(PAYOUT)).rejects.toThrow(new ProviderRequestError('momo', 400, 'INVALID_AMOUNT'));
  });

  it('says unavailable, never refused, when the provider fails or does not answer in time', async () => {
    answer = withToken(() => ({ status: 500 }));
    await expect(payout().send(PAYOUT)).rejects.toThrow(ProviderUnavailableError);
    answer = withToken(() => undefined);
    const timedOut = payout({ PROVIDER_TIMEOUT_MS: '200' }).send(PAYOUT);
    await expect(timedOut).rejects.toThrow(ProviderUnavailableError);
    await expect(timedOut).rejects.toThrow('momo unavailable: no response');
    await expect(momoRefund({ PROVIDER_TIMEOUT_MS: '200' }).status(REFUND.reference)).rejects.toThrow(
      ProviderUnavailableError,
    );
  });

  it.each<[string, unknown, MoneyOutOutcome]>([
    ['PENDING', { status: 'PENDING' }, { status: 'PENDING' }],
    [
      'SUCCESSFUL',
      { status: 'SUCCESSFUL', financialTransactionId: '5512345678' },
      { status: 'SUCCESSFUL', providerTransactionId: '5512345678' },
    ],
    [
      'FAILED',
      { status: 'FAILED', reason: 'PAYEE_NOT_FOUND' },
      { status: 'FAILED', providerReason: 'PAYEE_NOT_FOUND' },
    ],
    ['REVERSED', { status: 'REVERSED' }, { status: 'REVERSED', providerReason: 'REVERSED' }],
  ])('reads a transfer %s by our reference', async (_name, body, outcome) => {
    answer = withToken(() => ({ status: 200, body }));
    expect(await payout().status(PAYOUT.reference)).toEqual(outcome);
    expect(recorded[1].path).toBe(`/disbursement/v1_0/transfer/${momoTransferReferenceId(PAYOUT.reference)}`);
  });

  it('answers NOT_FOUND when the provider never registered the reference (404), and refuses an unreadable status', async () => {
    answer = withToken(() => ({ status: 404, body: { code: 'RESOURCE_NOT_FOUND' } }));
    expect(await payout().status(PAYOUT.reference)).toEqual({ status: 'NOT_FOUND' });
    expect(await momoRefund().status(REFUND.reference)).toEqual({ status: 'NOT_FOUND' });
    expect(recorded.at(-1)?.path).toBe(`/disbursement/v1_0/refund/${momoRefundReferenceId(REFUND.reference)}`);
    answer = withToken(() => ({ status: 200, body: { status: 'DONE' } }));
    await expect(payout().status(PAYOUT.reference)).rejects.toThrow(ProviderRequestError);
  });

  it('checks the account holder: active, then the name (name, else given and family names)', async () => {
    const info = (body: unknown) =>
      withToken((r) => (r.path.endsWith('/active') ? { status: 200, body: { result: true } } : { status: 200, body }));
    answer = info({ name: 'Nakato Sarah', given_name: 'Sarah', family_name: 'Nakato' });
    expect(await payout().accountHolder('256772000001')).toEqual({ canReceive: true, name: 'Nakato Sarah' });
    expect(recorded.slice(1).map((r) => r.path)).toEqual([
      '/disbursement/v1_0/accountholder/msisdn/256772000001/active',
      '/disbursement/v1_0/accountholder/msisdn/256772000001/basicuserinfo',
    ]);
    answer = info({ given_name: 'Sarah', family_name: 'Nakato' });
    expect(await payout().accountHolder('256772000001')).toEqual({ canReceive: true, name: 'Sarah Nakato' });
    answer = info({ sub: '0' });
    await expect(payout().accountHolder('256772000001')).rejects.toThrow(ProviderRequestError);
  });

  it('answers an account that cannot receive without asking its name', async () => {
    answer = withToken(() => ({ status: 200, body: { result: false } }));
    expect(await payout().accountHolder('256772000003')).toEqual({ canReceive: false });
    expect(recorded.filter((r) => r.path.endsWith('/basicuserinfo'))).toHaveLength(0);
    answer = withToken(() => ({ status: 404, body: { code: 'RESOURCE_NOT_FOUND' } }));
    expect(await payout().accountHolder('256772000009')).toEqual({ canReceive: false });
  });

  it('finds our reference in a transfer or refund callback, and nothing in a callback of another kind', () => {
    const transfer = { externalId: 'payout-1', payee: { partyIdType: 'MSISDN', partyId: '1' }, status: 'SUCCESSFUL' };
    const refund = { externalId: 'refund-1', status: 'FAILED', reason: 'NOT_ALLOWED' };
    const collection = { externalId: 'PG1', payer: { partyIdType: 'MSISDN', partyId: '1' }, status: 'SUCCESSFUL' };
    expect(payout().verifyNotification(transfer)).toBe('payout-1');
    expect(payout().verifyNotification({ ...transfer, status: 'REVERSED' })).toBe('payout-1');
    expect(momoRefund().verifyNotification(refund)).toBe('refund-1');
    expect(payout().verifyNotification(refund)).toBeNull();
    expect(momoRefund().verifyNotification(transfer)).toBeNull();
    expect(momoRefund().verifyNotification(collection)).toBeNull();
    expect(payout().verifyNotification({ ...transfer, status: 'DONE' })).toBeNull();
  });
});

describe('card refunds', () => {
  const refundBody = (status: string, extra: Record<string, unknown> = {}) => ({
    id: 're_1',
    reference: REFUND.reference,
    status,
    ...extra,
  });

  it('asks the card provider to refund the charge made under the collection reference', async () => {
    answer = () => ({ status: 201, body: refundBody('pending') });
    await cardRefund().send(REFUND);
    expect(recorded[0]).toMatchObject({
      method: 'POST',
      path: '/v1/refunds',
      headers: { authorization: 'Bearer sandbox-card-secret' },
      body: {
        reference: REFUND.reference,
        payment_reference: REFUND.collectionReference,
        amount: '20000',
        currency: 'UGX',
        description: REFUND.payerMessage,
        notify_url: REFUND.notifyUrl,
      },
    });
  });

  it('refuses on a 4xx, says unavailable on a 5xx', async () => {
    answer = () => ({ status: 400, body: { error: { code: 'amount_too_large' } } });
    await expect(cardRefund().send(REFUND)).rejects.toThrow(new ProviderRequestError('card', 400, 'amount_too_large'));
    answer = () => ({ status: 502 });
    await expect(cardRefund().send(REFUND)).rejects.toThrow(ProviderUnavailableError);
  });

  it.each<[string, unknown[], MoneyOutOutcome]>([
    ['none (NOT_FOUND)', [], { status: 'NOT_FOUND' }],
    ['pending', [refundBody('pending')], { status: 'PENDING' }],
    ['succeeded', [refundBody('succeeded')], { status: 'SUCCESSFUL', providerTransactionId: 're_1' }],
    [
      'failed',
      [refundBody('failed', { failure_code: 'charge_disputed' })],
      { status: 'FAILED', providerReason: 'charge_disputed' },
    ],
  ])('reads the refund listed under our reference: %s', async (_name, data, outcome) => {
    answer = () => ({ status: 200, body: { data } });
    expect(await cardRefund().status(REFUND.reference)).toEqual(outcome);
    expect(recorded[0].path).toBe(`/v1/refunds?reference=${REFUND.reference}`);
  });

  it('finds our reference in a refund notification only', () => {
    const refund = cardRefund();
    expect(refund.verifyNotification({ refund_id: 're_1', reference: 'refund-1', status: 'succeeded' })).toBe(
      'refund-1',
    );
    expect(refund.verifyNotification({ session_id: 'cs_1', reference: 'PG1', status: 'succeeded' })).toBeNull();
    expect(refund.verifyNotification({ refund_id: 're_1', reference: 'refund-1', status: 'open' })).toBeNull();
  });
});
