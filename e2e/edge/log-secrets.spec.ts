/**
 * No secret and no card number in the log or the event store: every kind of flow runs with
 * LOG_LEVEL=debug, then every line the process wrote and every stored event is searched for
 * the merchant's secret and signing keys, the admin token, MASTER_KEY and the card number.
 */
import { TEST_ADMIN_TOKEN, TEST_MASTER_KEY } from '@paygate/testing';
import {
  StdoutCapture,
  completedMobileMoney,
  paidByCard,
  paidPrn,
  startObservedPaygate,
  type ObservedPaygate,
} from './observability-test-setup';

const CARD_NUMBER = '4242424242424242';

describe('secrets and card numbers stay out of logs and events', () => {
  const capture = new StdoutCapture();
  let observed: ObservedPaygate;

  beforeAll(async () => {
    capture.start();
    // Merchant creation (admin token, keys in the answer) happens here.
    observed = await startObservedPaygate({ LOG_LEVEL: 'debug' });
  });

  afterAll(async () => {
    await observed?.close();
    capture.stop();
  });

  it('after mobile money, card checkout, collect-for-payment, admin calls and callbacks, none of them is written anywhere', async () => {
    const { client, paygate } = observed;
    await completedMobileMoney(observed);
    await paidByCard(observed, CARD_NUMBER.replace(/(\d{4})(?=\d)/g, '$1 '));
    await paidPrn(observed);
    // Admin token use: read the merchant, list its deliveries, issue new keys.
    const admin = { authorization: `Bearer ${TEST_ADMIN_TOKEN}` };
    expect((await fetch(`${paygate.url}/admin/v1/merchants/${client.merchant.id}`, { headers: admin })).status).toBe(
      200,
    );
    expect(
      (await fetch(`${paygate.url}/admin/v1/deliveries?merchant_id=${client.merchant.id}`, { headers: admin })).status,
    ).toBe(200);
    const issued = await fetch(`${paygate.url}/admin/v1/merchants/${client.merchant.id}/keys`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ keys: ['api', 'signing'] }),
    });
    expect(issued.status).toBe(201);
    const { data: newKeys } = (await issued.json()) as { data: { secret_key: string; signing_key: string } };
    expect(newKeys).toMatchObject({
      secret_key: expect.stringMatching(/.{16,}/),
      signing_key: expect.stringMatching(/.{16,}/),
    });

    const events = await paygate.infrastructure.store.readAll({ maxCount: 1_000_000 });
    const logs = capture.lines;
    // The capture saw the flows at debug level, so finding nothing means something.
    const entries = capture.entries();
    expect(entries.some((entry) => entry.level === 'debug')).toBe(true);
    expect(
      entries
        .filter((entry) => entry.message === 'collection finished')
        .map((entry) => entry.method)
        .sort(),
    ).toEqual(['CARD', 'MOBILE_MONEY', 'MOBILE_MONEY']);
    expect(entries.some((entry) => entry.message === 'service payment finished')).toBe(true);
    expect(entries.some((entry) => entry.message === 'callback attempt')).toBe(true);
    expect(
      events.some(
        (event) => event.type === 'CollectionCompleted' && JSON.stringify(event.data).includes('424242******4242'),
      ),
    ).toBe(true);

    const secrets = {
      'secret key': client.merchant.secretKey,
      'signing key': client.merchant.signingKey,
      'issued secret key': newKeys.secret_key,
      'issued signing key': newKeys.signing_key,
      'admin token': TEST_ADMIN_TOKEN,
      MASTER_KEY: TEST_MASTER_KEY,
      'card number': CARD_NUMBER,
      'card number with spaces': '4242 4242 4242 4242',
    };
    const stored = events.map((event) => JSON.stringify(event));
    const found = Object.entries(secrets).flatMap(([name, value]) => [
      ...logs.filter((line) => line.includes(value)).map((line) => `${name} in the log: ${line.slice(0, 200)}`),
      ...stored.filter((event) => event.includes(value)).map((event) => `${name} in an event: ${event.slice(0, 200)}`),
    ]);
    expect(found).toEqual([]);
  });
});
