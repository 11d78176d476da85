/**
 * The admin API refuses callback URLs the dispatcher would refuse, when they are configured
 * (create and PATCH), with a 400 naming the field, and stores nothing (the payouts callback URL like the other two). In-process Paygate on
 * PGlite; no callback is ever sent here (no collection is made), so the URLs below are only
 * stored or refused, never connected to.
 */
import { apiHelpers, expectEnvelope, expectFieldErrors, type Json } from '../collections/api-test-setup';
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

const start = (allowPrivate: boolean) =>
  startTestPaygate({
    ALLOW_PRIVATE_CALLBACKS: String(allowPrivate),
  });

/** Refused whatever ALLOW_PRIVATE_CALLBACKS says: [URL, the message's reason]. */
const NEVER: Array<[string, string]> = [
  ['https://169.254.169.254/latest/meta-data/', 'must not point at link-local (169.254.0.0/16)'],
  ['https://[64:ff9b::a9fe:a9fe]/cb', 'must not point at NAT64 (64:ff9b::/96) of link-local (169.254.0.0/16)'],
  ['https://[::127.0.0.1]/cb', 'must not point at IPv4-compatible (deprecated) (::/96)'],
  ['https://0/cb', 'must not point at "this network" (0.0.0.0/8)'],
  ['https://198.18.0.1/cb', 'must not point at benchmarking (198.18.0.0/15)'],
  ['https://224.0.0.251/cb', 'must not point at multicast (224.0.0.0/4)'],
  ['https://[ff02::1]/cb', 'must not point at multicast (ff00::/8)'],
  ['https://255.255.255.255/cb', 'must not point at limited broadcast (255.255.255.255/32)'],
  ['https://203.0.113.10/cb', 'must not point at documentation (203.0.113.0/24)'],
  ['https://[2001:db8::10]/cb', 'must not point at documentation (2001:db8::/32)'],
  ['https://[2001::1]/cb', 'must not point at Teredo (2001::/32)'],
  ['https://[fe80::1]/cb', 'must not point at link-local (fe80::/10)'],
];

/** Refused in production, accepted for local use: [URL, the message's reason with the switch off]. */
const LOCAL: Array<[string, string]> = [
  ['http://shop.example.com/cb', 'must be an https URL'],
  ['https://127.0.0.1/cb', 'must not point at loopback (127.0.0.0/8)'],
  ['https://2130706433/cb', 'must not point at loopback (127.0.0.0/8)'],
  ['https://0177.0.0.1/cb', 'must not point at loopback (127.0.0.0/8)'],
  ['https://0x7f.1/cb', 'must not point at loopback (127.0.0.0/8)'],
  ['https://127.1/cb', 'must not point at loopback (127.0.0.0/8)'],
  ['https://[::1]/cb', 'must not point at loopback (::1/128)'],
  ['https://[::ffff:127.0.0.1]/cb', 'must not point at IPv4-mapped (::ffff:0:0/96) of loopback (127.0.0.0/8)'],
  ['https://[2002:7f00:1::]/cb', 'must not point at 6to4 (2002::/16) of loopback (127.0.0.0/8)'],
  ['https://localhost/cb', 'must not point at loopback (localhost)'],
  ['https://Shop.LOCALHOST./cb', 'must not point at loopback (shop.localhost.)'],
  ['https://10.1.2.3/cb', 'must not point at private-use (10.0.0.0/8)'],
  ['https://192.168.1.20/cb', 'must not point at private-use (192.168.0.0/16)'],
  ['https://100.64.0.1/cb', 'must not point at shared address space (carrier-grade NAT) (100.64.0.0/10)'],
  ['https://[fd00::1]/cb', 'must not point at unique local (fc00::/7)'],
];

describe.each([
  ['not allowed (production)', false],
  ['allowed (ALLOW_PRIVATE_CALLBACKS=true)', true],
])('admin API callback URLs, private callbacks %s', (_label, allowPrivate) => {
  let paygate: InProcessPaygate;
  const { admin } = apiHelpers(() => paygate);
  const merchantCount = async () =>
    (await paygate.infrastructure.sql.query<{ n: number }>('select count(*)::int as n from merchants'))[0].n;

  beforeAll(async () => {
    paygate = await start(allowPrivate);
  });
  afterAll(() => paygate?.close());

  const refused = allowPrivate ? NEVER : [...NEVER, ...LOCAL];
  const accepted = [
    'https://shop.example.com/paygate/cb',
    'https://8.8.4.4/cb',
    'https://[2606:4700::1]/cb',
    ...(allowPrivate ? LOCAL.map(([url]) => url) : []),
  ];

  it.each(refused)('create with %s answers 400 naming the field, and creates nothing', async (url, reason) => {
    const before = await merchantCount();
    const answer = await admin('POST', '', {
      name: 'Refused merchant',
      collection_callback_url: 'https://shop.example.com/cb',
      service_payments_callback_url: url,
    });
    expectFieldErrors(answer, ['service_payments_callback_url'], `service_payments_callback_url ${reason}`);
    expect(answer.body.data.errors).toHaveLength(1);
    expect(await merchantCount()).toBe(before);
  });

  it.each(refused)('PATCH with %s answers 400 naming the field, and changes nothing', async (url, reason) => {
    const created = await admin('POST', '', {
      name: 'Patched merchant',
      collection_callback_url: 'https://shop.example.com/cb',
    });
    expectEnvelope(created, 201);
    const id = created.body.data.id as string;
    const before = await admin('GET', `/${id}`);
    expectFieldErrors(
      await admin('PATCH', `/${id}`, { collection_callback_url: url, status: 'suspended' }),
      ['collection_callback_url'],
      `collection_callback_url ${reason}`,
    );
    expect((await admin('GET', `/${id}`)).body).toEqual(before.body);
  });

  it.each(refused)(
    'PATCH of the payouts callback URL with %s answers 400 naming it, and changes nothing',
    async (url, reason) => {
      const created = await admin('POST', '', {
        name: 'Paying-out merchant',
        payouts_callback_url: 'https://shop.example.com/payouts',
      });
      expectEnvelope(created, 201);
      const id = created.body.data.id as string;
      const before = await admin('GET', `/${id}`);
      expectFieldErrors(
        await admin('PATCH', `/${id}`, { payouts_callback_url: url }),
        ['payouts_callback_url'],
        `payouts_callback_url ${reason}`,
      );
      expect((await admin('GET', `/${id}`)).body).toEqual(before.body);
    },
  );

  it.each(accepted)('create and PATCH accept %s', async (url) => {
    const created = await admin('POST', '', {
      name: 'Accepted merchant',
      collection_callback_url: url,
      service_payments_callback_url: url,
      payouts_callback_url: url,
    });
    expectEnvelope(created, 201);
    expect(created.body.data).toMatchObject({
      collection_callback_url: url,
      service_payments_callback_url: url,
      payouts_callback_url: url,
    });
    const patched = await admin('PATCH', `/${created.body.data.id as string}`, {
      collection_callback_url: null,
      service_payments_callback_url: url,
    });
    expectEnvelope(patched, 200);
    expect(patched.body.data).toMatchObject({
      collection_callback_url: null,
      service_payments_callback_url: url,
      payouts_callback_url: url,
    });
  });

  it.each<[string, Json, string[]]>([
    [
      'three refused URLs: each named',
      {
        name: 'M',
        collection_callback_url: 'https://[2001:db8::1]/',
        service_payments_callback_url: 'ftp://shop.example.com/',
        payouts_callback_url: 'https://169.254.169.254/',
      },
      ['collection_callback_url', 'service_payments_callback_url', 'payouts_callback_url'],
    ],
    ['a URL that is not a string', { name: 'M', collection_callback_url: 42 }, ['collection_callback_url']],
    [
      'a URL longer than 2048 characters',
      { name: 'M', collection_callback_url: `https://shop.example.com/${'a'.repeat(2048)}` },
      ['collection_callback_url'],
    ],
    ['a relative URL', { name: 'M', collection_callback_url: '/cb' }, ['collection_callback_url']],
    [
      'a payouts callback URL that is not a string',
      { name: 'M', payouts_callback_url: true },
      ['payouts_callback_url'],
    ],
  ])('create with %s answers 400', async (_label, body, fields) => {
    const answer = await admin('POST', '', body);
    expectFieldErrors(answer, fields);
    expect(answer.body.data.errors).toHaveLength(fields.length);
  });
});
