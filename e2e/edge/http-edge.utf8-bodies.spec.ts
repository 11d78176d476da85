/**
 * Issue 26: a body whose bytes are not UTF-8 is a 400 in the envelope, "the request body is not
 * valid UTF-8", naming `body`, with nothing written; Fastify answered it "Request body size did
 * not match Content-Length" (it decoded each bad byte to U+FFFD, three bytes). JSON, HTML forms
 * and text alike, on the merchant API, the admin API and the sandbox. UTF-8 itself still passes.
 */
import { startInputPaygate, NOTHING_WRITTEN, type InputPaygate } from './input-paygate-test-setup';
import { expectEnvelope, send } from './http-edge-test-setup';
import { TEST_ADMIN_TOKEN } from '@paygate/testing';

const NOT_UTF8: [string, number[]][] = [
  ['C3 28 (a lead byte, then no continuation)', [0xc3, 0x28]],
  ['a lone FF', [0xff]],
  ['a lone continuation byte 80', [0x80]],
  ['overlong "/" (C0 AF)', [0xc0, 0xaf]],
  ['overlong "/" in three bytes (E0 80 AF)', [0xe0, 0x80, 0xaf]],
  ['overlong NUL (C0 80)', [0xc0, 0x80]],
  ['a surrogate encoded (ED A0 80)', [0xed, 0xa0, 0x80]],
  ['past U+10FFFF (F4 90 80 80)', [0xf4, 0x90, 0x80, 0x80]],
  ['a sequence cut short (E2 82)', [0xe2, 0x82]],
];

const REFUSAL = 'the request body is not valid UTF-8';

describe('a request body that is not UTF-8', () => {
  let input: InputPaygate;
  let merchantJson: Record<string, string>;
  const adminJson = { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' };

  /** JSON text with `bytes` inside a string value. */
  const jsonWith = (prefix: string, bytes: number[], suffix: string) =>
    Buffer.concat([Buffer.from(prefix), Buffer.from(bytes), Buffer.from(suffix)]);

  beforeAll(async () => {
    input = await startInputPaygate();
    merchantJson = { 'public-key': input.context.merchant.publicKey, 'content-type': 'application/json' };
    await input.writesSinceLastLook();
  });

  afterAll(async () => {
    await input?.close();
  });

  const expectRefused = async (method: string, path: string, headers: Record<string, string>, body: Buffer) => {
    const answer = await send(input.paygate.url, method, path, headers, body);
    expectEnvelope(answer, method, 400, REFUSAL);
    expect(JSON.parse(answer.text).data).toEqual({ errors: [{ field: 'body', message: REFUSAL }] });
  };

  it.each(NOT_UTF8)('refuses %s in a JSON body at every kind of route, writing nothing', async (_case, bytes) => {
    const collection = jsonWith('{"merchant_reference":"utf8-1","customer_name":"Jane ', bytes, ' Doe"}');
    await expectRefused('POST', '/v1/collections/initialize', merchantJson, collection);
    await expectRefused(
      'POST',
      '/v1/collections/confirm',
      merchantJson,
      jsonWith('{"internal_reference":"PG', bytes, '"}'),
    );
    await expectRefused('POST', '/admin/v1/merchants', adminJson, jsonWith('{"name":"Kampala ', bytes, ' Books"}'));
    await expectRefused(
      'PATCH',
      `/admin/v1/merchants/${input.context.otherMerchantId}`,
      adminJson,
      jsonWith('{"status":"', bytes, '"}'),
    );
    await expectRefused('POST', '/sandbox/v1/prns', adminJson, jsonWith('{"description":"', bytes, '"}'));
    // Bad bytes outside any string, too.
    await expectRefused('POST', '/v1/collections/initialize', merchantJson, jsonWith('{', bytes, '}'));
    expect(await input.writesSinceLastLook()).toEqual(NOTHING_WRITTEN);
  });

  it.each(NOT_UTF8)('refuses %s in an HTML form and in a text body', async (_case, bytes) => {
    const form = Buffer.concat([
      Buffer.from('card_number=4242'),
      Buffer.from(bytes),
      Buffer.from('&expiry=12%2F39&cvv=123'),
    ]);
    await expectRefused(
      'POST',
      `/sandbox/card/checkout/${input.context.checkoutSession}`,
      { 'content-type': 'application/x-www-form-urlencoded' },
      form,
    );
    await expectRefused(
      'POST',
      '/v1/collections/initialize',
      { ...merchantJson, 'content-type': 'text/plain; charset=utf-8' },
      Buffer.from(bytes),
    );
    expect(await input.writesSinceLastLook()).toEqual(NOTHING_WRITTEN);
  });

  it('reads UTF-8 as before: a name with accents and an emoji is accepted', async () => {
    const body = Buffer.from(JSON.stringify({ name: 'Zoë’s Café 📚' }), 'utf8');
    const answer = await send(input.paygate.url, 'POST', '/admin/v1/merchants', adminJson, body);
    expect(answer.status).toBe(201);
    expect(JSON.parse(answer.text).data.name).toBe('Zoë’s Café 📚');
  });
});
