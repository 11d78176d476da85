/**
 * Every route of `npm start` that reads input (body, query string, path), as the input suites
 * (bad-input.text-fields.property.spec.ts, bad-input.corpus.spec.ts) send it: for each, a base
 * request that the input layer lets through, with every string field the client controls present.
 * How requests are encoded, sent and their writes counted: input-paygate-test-setup.ts.
 *
 * Base requests are built so that, accepted or not, nothing runs in the background afterwards
 * that could write while a later request is counted: collect-for-payment names a provider that
 * does not exist (a PRN verdict would arrive later), confirm and the callback routes name
 * unknown collections, the hosted checkout's card number fails its check digit.
 *
 * Test code: jest does not collect it (not *.spec.ts) and the build leaves it out.
 */
import { SILENT_MOMO_REQUEST, TEST_ADMIN_TOKEN } from '@paygate/testing';

export type Json = Record<string, unknown>;
export type Location = 'body' | 'query' | 'path';
export type RouteGroup = 'public' | 'admin' | 'sandbox' | 'provider-callback';

/** What base requests need from the running Paygate. */
export interface InputContext {
  url: string;
  merchant: { id: string; publicKey: string; secretKey: string };
  /** Target of the admin routes that change a merchant (status, keys), so the API merchant keeps working. */
  otherMerchantId: string;
  momoToken: string;
  /** An open card checkout session. */
  checkoutSession: string;
}

/** One request before it is encoded: path parameters and query as values, body as JSON or form fields. */
export interface RouteRequest {
  params: Record<string, string>;
  query: Record<string, string>;
  body?: Json;
  headers: Record<string, string>;
}

export interface InputRoute {
  name: string;
  group: RouteGroup;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH';
  /** With `:name` placeholders for the path parameters. */
  path: string;
  /** The body is an HTML form (application/x-www-form-urlencoded) rather than JSON. */
  form?: boolean;
  /** A base request; `n` makes references unique. */
  base(context: InputContext, n: number): RouteRequest;
}

const UNKNOWN_COLLECTION = 'PG0000000000000000000000ZZ';
const future = () => new Date(Date.now() + 24 * 3600_000).toISOString();
/** A UUID v4 that differs with n. */
const uuid = (n: number) => `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;

const merchantHeaders = (context: InputContext) => ({
  'public-key': context.merchant.publicKey,
  'secret-key': context.merchant.secretKey,
});
const admin = () => ({ authorization: `Bearer ${TEST_ADMIN_TOKEN}` });
const none = { params: {}, query: {} };

const collectionFields = (n: number): Json => ({
  merchant_reference: `input-${n}`,
  ...SILENT_MOMO_REQUEST,
  redirect_url: 'https://shop.example.com/paid',
});

export const INPUT_ROUTES: InputRoute[] = [
  {
    name: 'POST /v1/collections/initialize',
    group: 'public',
    method: 'POST',
    path: '/v1/collections/initialize',
    base: (c, n) => ({ ...none, headers: merchantHeaders(c), body: collectionFields(n) }),
  },
  {
    name: 'POST /v1/collections/collect-for-payment',
    group: 'public',
    method: 'POST',
    path: '/v1/collections/collect-for-payment',
    base: (c, n) => ({
      ...none,
      headers: merchantHeaders(c),
      body: { ...collectionFields(n), provider_code: 'no_such_provider', prn: '2250000001301' },
    }),
  },
  {
    name: 'POST /v1/collections/confirm',
    group: 'public',
    method: 'POST',
    path: '/v1/collections/confirm',
    base: (c) => ({ ...none, headers: merchantHeaders(c), body: { internal_reference: UNKNOWN_COLLECTION } }),
  },
  {
    name: 'GET /v1/collections/:internal_reference',
    group: 'public',
    method: 'GET',
    path: '/v1/collections/:internal_reference',
    base: (c) => ({ params: { internal_reference: UNKNOWN_COLLECTION }, query: {}, headers: merchantHeaders(c) }),
  },
  {
    name: 'GET /v1/collections?merchant_reference',
    group: 'public',
    method: 'GET',
    path: '/v1/collections',
    base: (c, n) => ({ params: {}, query: { merchant_reference: `input-${n}` }, headers: merchantHeaders(c) }),
  },
  {
    name: 'GET /v1/payment-providers',
    group: 'public',
    method: 'GET',
    path: '/v1/payment-providers',
    base: (c) => ({
      params: {},
      query: { currency: 'UGX', transaction_type: 'COLLECTION' },
      headers: merchantHeaders(c),
    }),
  },
  {
    name: 'GET /v1/wallet-balances',
    group: 'public',
    method: 'GET',
    path: '/v1/wallet-balances',
    base: (c) => ({ ...none, headers: merchantHeaders(c) }),
  },
  {
    name: 'POST /v1/callbacks/resend',
    group: 'public',
    method: 'POST',
    path: '/v1/callbacks/resend',
    base: (c) => ({ ...none, headers: merchantHeaders(c), body: { internal_reference: UNKNOWN_COLLECTION } }),
  },
  {
    // An unknown collection: refused, nothing held.
    name: 'POST /v1/refunds',
    group: 'public',
    method: 'POST',
    path: '/v1/refunds',
    base: (c, n) => ({
      ...none,
      headers: merchantHeaders(c),
      body: {
        internal_reference: UNKNOWN_COLLECTION,
        refund_reference: `input-refund-${n}`,
        amount: 1000,
        reason: 'r',
      },
    }),
  },
  {
    name: 'GET /v1/refunds/:refund_reference',
    group: 'public',
    method: 'GET',
    path: '/v1/refunds/:refund_reference',
    base: (c, n) => ({ params: { refund_reference: `input-refund-${n}` }, query: {}, headers: merchantHeaders(c) }),
  },
  {
    name: 'GET /v1/refunds?internal_reference',
    group: 'public',
    method: 'GET',
    path: '/v1/refunds',
    base: (c) => ({ params: {}, query: { internal_reference: UNKNOWN_COLLECTION }, headers: merchantHeaders(c) }),
  },
  {
    // 256772000003 cannot receive: the name check refuses it before anything is counted or held.
    name: 'POST /v1/payouts',
    group: 'public',
    method: 'POST',
    path: '/v1/payouts',
    base: (c, n) => ({
      ...none,
      headers: merchantHeaders(c),
      body: {
        payout_reference: `input-payout-${n}`,
        currency: 'UGX',
        amount: 1000,
        provider_code: 'mtn_momo_ug',
        msisdn: '256772000003',
        recipient_name: 'Jane Doe',
      },
    }),
  },
  {
    name: 'GET /v1/payouts/recipient',
    group: 'public',
    method: 'GET',
    path: '/v1/payouts/recipient',
    base: (c) => ({
      params: {},
      query: { provider_code: 'mtn_momo_ug', msisdn: '256772000003' },
      headers: merchantHeaders(c),
    }),
  },
  {
    name: 'GET /v1/payouts/:payout_reference',
    group: 'public',
    method: 'GET',
    path: '/v1/payouts/:payout_reference',
    base: (c, n) => ({ params: { payout_reference: `input-payout-${n}` }, query: {}, headers: merchantHeaders(c) }),
  },
  {
    name: 'GET /v1/payouts',
    group: 'public',
    method: 'GET',
    path: '/v1/payouts',
    base: (c) => ({
      params: {},
      query: { status: 'COMPLETED', provider_code: 'mtn_momo_ug', created_from: '2026-11-01', limit: '10' },
      headers: merchantHeaders(c),
    }),
  },
  {
    name: 'GET /admin/v1/money-out?state',
    group: 'admin',
    method: 'GET',
    path: '/admin/v1/money-out',
    base: () => ({ params: {}, query: { state: 'needs_attention' }, headers: admin() }),
  },
  {
    name: 'GET /v1/checkout/return/:internal_reference',
    group: 'public',
    method: 'GET',
    path: '/v1/checkout/return/:internal_reference',
    base: () => ({ params: { internal_reference: UNKNOWN_COLLECTION }, query: {}, headers: {} }),
  },
  {
    name: 'POST /admin/v1/merchants',
    group: 'admin',
    method: 'POST',
    path: '/admin/v1/merchants',
    base: (_c, n) => ({
      ...none,
      headers: admin(),
      body: {
        name: `Input merchant ${n}`,
        collection_callback_url: 'https://shop.example.com/paygate/collections',
        service_payments_callback_url: 'https://shop.example.com/paygate/payments',
      },
    }),
  },
  {
    name: 'GET /admin/v1/merchants/:id',
    group: 'admin',
    method: 'GET',
    path: '/admin/v1/merchants/:id',
    base: (c) => ({ params: { id: c.otherMerchantId }, query: {}, headers: admin() }),
  },
  {
    name: 'PATCH /admin/v1/merchants/:id',
    group: 'admin',
    method: 'PATCH',
    path: '/admin/v1/merchants/:id',
    base: (c) => ({
      params: { id: c.otherMerchantId },
      query: {},
      headers: admin(),
      body: {
        collection_callback_url: 'https://shop.example.com/paygate/collections',
        service_payments_callback_url: 'https://shop.example.com/paygate/payments',
        status: 'active',
      },
    }),
  },
  {
    name: 'POST /admin/v1/merchants/:id/keys',
    group: 'admin',
    method: 'POST',
    path: '/admin/v1/merchants/:id/keys',
    base: (c) => ({ params: { id: c.otherMerchantId }, query: {}, headers: admin(), body: { keys: ['signing'] } }),
  },
  {
    name: 'GET /admin/v1/deliveries',
    group: 'admin',
    method: 'GET',
    path: '/admin/v1/deliveries',
    base: (c) => ({
      params: {},
      query: { state: 'pending', merchant_id: c.merchant.id, internal_reference: UNKNOWN_COLLECTION },
      headers: admin(),
    }),
  },
  {
    name: 'POST /admin/v1/deliveries/retry',
    group: 'admin',
    method: 'POST',
    path: '/admin/v1/deliveries/retry',
    base: () => ({ ...none, headers: admin(), body: { webhook_ids: ['msg_unknown'] } }),
  },
  {
    name: 'POST /sandbox/v1/prns',
    group: 'sandbox',
    method: 'POST',
    path: '/sandbox/v1/prns',
    base: (_c, n) => ({
      ...none,
      headers: admin(),
      body: {
        prn: String(2_250_001_000_000 + n),
        amount: 25000,
        currency: 'UGX',
        status: 'AVAILABLE',
        service_name: 'URA - Domestic Tax',
        payer_name: 'Jane Doe',
        expires_at: future(),
      },
    }),
  },
  {
    name: 'GET /sandbox/v1/prns/:prn',
    group: 'sandbox',
    method: 'GET',
    path: '/sandbox/v1/prns/:prn',
    base: () => ({ params: { prn: '2250000001301' }, query: {}, headers: admin() }),
  },
  {
    name: 'PUT /sandbox/v1/biller/faults',
    group: 'sandbox',
    method: 'PUT',
    path: '/sandbox/v1/biller/faults',
    base: () => ({ ...none, headers: admin(), body: { fail_next: 0, delay_ms: 0 } }),
  },
  {
    name: 'POST /admin/v1/wallets/top-up',
    group: 'admin',
    method: 'POST',
    path: '/admin/v1/wallets/top-up',
    base: (c, n) => ({
      ...none,
      headers: admin(),
      body: { merchant_id: c.merchant.id, currency: 'UGX', amount: 1000, reference: `input-top-up-${n}` },
    }),
  },
  {
    name: 'POST /sandbox/momo/collection/token/',
    group: 'sandbox',
    method: 'POST',
    // Nest strips one trailing slash: MoMo's token path is `token/`, routed as `token//`.
    path: '/sandbox/momo/collection/token/',
    base: () => ({
      ...none,
      headers: {
        authorization: `Basic ${Buffer.from('sandbox-user:sandbox-key').toString('base64')}`,
        'ocp-apim-subscription-key': 'sandbox-subscription-key',
      },
    }),
  },
  {
    name: 'POST /sandbox/momo/collection/v1_0/requesttopay',
    group: 'sandbox',
    method: 'POST',
    path: '/sandbox/momo/collection/v1_0/requesttopay',
    base: (c, n) => ({
      ...none,
      headers: { ...momoHeaders(c), 'x-reference-id': uuid(n) },
      body: {
        amount: '1000',
        currency: 'UGX',
        externalId: `input-${n}`,
        payer: { partyIdType: 'MSISDN', partyId: '256772000004' },
        payerMessage: 'Pay order',
        payeeNote: 'Order 1001',
      },
    }),
  },
  {
    name: 'GET /sandbox/momo/collection/v1_0/requesttopay/:referenceId',
    group: 'sandbox',
    method: 'GET',
    path: '/sandbox/momo/collection/v1_0/requesttopay/:referenceId',
    base: (c, n) => ({ params: { referenceId: uuid(n) }, query: {}, headers: momoHeaders(c) }),
  },
  {
    name: 'POST /sandbox/card/v1/checkout/sessions',
    group: 'sandbox',
    method: 'POST',
    path: '/sandbox/card/v1/checkout/sessions',
    base: (c, n) => ({
      ...none,
      headers: { authorization: 'Bearer sandbox-card-secret' },
      body: {
        reference: `input-${n}`,
        amount: '25000',
        currency: 'UGX',
        description: 'Order 1001',
        // Only called when a session is paid or cancelled, which no input suite does with these.
        notify_url: `${c.url}/provider-callbacks/card_ug/${UNKNOWN_COLLECTION}`,
        return_url: 'https://shop.example.com/paid',
        expires_at: future(),
      },
    }),
  },
  {
    name: 'GET /sandbox/card/v1/checkout/sessions/:id',
    group: 'sandbox',
    method: 'GET',
    path: '/sandbox/card/v1/checkout/sessions/:id',
    base: (c) => ({
      params: { id: c.checkoutSession },
      query: {},
      headers: { authorization: 'Bearer sandbox-card-secret' },
    }),
  },
  {
    name: 'GET /sandbox/card/checkout/:id',
    group: 'sandbox',
    method: 'GET',
    path: '/sandbox/card/checkout/:id',
    base: (c) => ({ params: { id: c.checkoutSession }, query: {}, headers: {} }),
  },
  {
    name: 'POST /sandbox/card/checkout/:id (form)',
    group: 'sandbox',
    method: 'POST',
    path: '/sandbox/card/checkout/:id',
    form: true,
    // The check digit is wrong: the form is answered with its errors and the session stays open.
    base: (c) => ({
      params: { id: c.checkoutSession },
      query: {},
      headers: {},
      body: { card_number: '4242 4242 4242 4241', expiry: '12/39', cvv: '123' },
    }),
  },
  {
    name: 'POST /sandbox/card/checkout/:id/cancel',
    group: 'sandbox',
    method: 'POST',
    path: '/sandbox/card/checkout/:id/cancel',
    form: true,
    base: () => ({ params: { id: 'cs_unknown' }, query: {}, headers: {}, body: {} }),
  },
  {
    name: 'GET /sandbox/biller/v1/prns/:prn',
    group: 'sandbox',
    method: 'GET',
    path: '/sandbox/biller/v1/prns/:prn',
    base: () => ({ params: { prn: '2250000001301' }, query: {}, headers: billerHeaders() }),
  },
  {
    name: 'POST /sandbox/biller/v1/prns/:prn/payments',
    group: 'sandbox',
    method: 'POST',
    path: '/sandbox/biller/v1/prns/:prn/payments',
    base: (_c, n) => ({
      params: { prn: '2259999999999' },
      query: {},
      headers: { ...billerHeaders(), 'idempotency-key': `input-${n}` },
      body: { amount: 25000, currency: 'UGX', reference: `input-${n}` },
    }),
  },
  {
    name: 'GET /sandbox/biller/v1/payments/:idempotencyKey',
    group: 'sandbox',
    method: 'GET',
    path: '/sandbox/biller/v1/payments/:idempotencyKey',
    base: (_c, n) => ({ params: { idempotencyKey: `input-${n}` }, query: {}, headers: billerHeaders() }),
  },
  {
    name: 'PUT /provider-callbacks/:providerCode/:internalReference (MoMo)',
    group: 'provider-callback',
    method: 'PUT',
    path: '/provider-callbacks/:providerCode/:internalReference',
    base: (_c, n) => ({
      params: { providerCode: 'mtn_momo_ug', internalReference: UNKNOWN_COLLECTION },
      query: {},
      headers: {},
      body: {
        amount: '81000',
        currency: 'UGX',
        financialTransactionId: `ft-${n}`,
        externalId: UNKNOWN_COLLECTION,
        payer: { partyIdType: 'MSISDN', partyId: '256772000004' },
        payerMessage: 'Pay order',
        payeeNote: 'Order 1001',
        status: 'SUCCESSFUL',
        reason: 'none',
      },
    }),
  },
  {
    name: 'POST /provider-callbacks/:providerCode/:internalReference (card)',
    group: 'provider-callback',
    method: 'POST',
    path: '/provider-callbacks/:providerCode/:internalReference',
    base: (_c, n) => ({
      params: { providerCode: 'card_ug', internalReference: UNKNOWN_COLLECTION },
      query: {},
      headers: {},
      body: {
        session_id: `cs_${n}`,
        reference: UNKNOWN_COLLECTION,
        status: 'succeeded',
        failure_code: 'none',
        card: { last4: '4242', masked: '424242******4242' },
      },
    }),
  },
];

function momoHeaders(context: InputContext): Record<string, string> {
  return {
    authorization: `Bearer ${context.momoToken}`,
    'ocp-apim-subscription-key': 'sandbox-subscription-key',
    'x-target-environment': 'sandbox',
  };
}

function billerHeaders(): Record<string, string> {
  return { 'x-api-key': 'sandbox-biller-key' };
}
