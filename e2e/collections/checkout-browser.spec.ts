import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { cardRequest, describeWithService, PaygateClient, TEST_TIMERS, uniqueReference } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

/** The merchant's site the customer returns to: a plain page, and a log of what it was asked for. */
interface Shop {
  origin: string;
  requests: string[];
  close(): Promise<void>;
}

async function startShop(): Promise<Shop> {
  const requests: string[] = [];
  const server = createServer((request, response) => {
    requests.push(request.url ?? '');
    // Only the return page exists; anything else the browser asks for (a favicon) is a 404.
    if (request.method === 'GET' && new URL(request.url ?? '/', 'http://shop').pathname === '/paid') {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      response.end(
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Thank you for your order</h1></body></html>',
      );
    } else {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        // The browser may still hold a keep-alive connection; close() alone would wait for it.
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Types into a field the way a customer does, replacing whatever the page pre-filled. */
async function typeInto(page: Page, selector: string, text: string): Promise<void> {
  const field = page.locator(selector);
  await field.clear();
  await field.pressSequentially(text);
}

async function fillCard(page: Page, cardNumber: string): Promise<void> {
  await typeInto(page, '#card_number', cardNumber);
  await typeInto(page, '#expiry', '12/40');
  await typeInto(page, '#cvv', '123');
}

const REDIRECT_FIELDS = [
  'id',
  'merchant_reference',
  'internal_reference',
  'transaction_status',
  'status_message',
  'hmac_signature',
];

interface CheckoutCase {
  name: string;
  card: string;
  /** A number that fails the Luhn check, submitted before `card` to see the error page. */
  mistypedFirst?: string;
  cancel?: boolean;
  status: 'COMPLETED' | 'FAILED' | 'CANCELLED';
  message: string;
}

const CASES: CheckoutCase[] = [
  {
    name: 'pays with 4242 4242 4242 4242 after a mistyped number is refused',
    card: '4242 4242 4242 4242',
    mistypedFirst: '4242 4242 4242 4241',
    status: 'COMPLETED',
    message: 'Transaction completed successfully',
  },
  {
    name: 'is declined with 4000 0000 0000 0002',
    card: '4000 0000 0000 0002',
    status: 'FAILED',
    message: 'Card declined',
  },
  {
    name: 'is cancelled with the Cancel button',
    card: '4242 4242 4242 4242',
    cancel: true,
    status: 'CANCELLED',
    message: 'Transaction cancelled by the customer on the checkout page',
  },
];

describe('hosted card checkout page over plain HTTP', () => {
  let paygate: InProcessPaygate;
  let client: PaygateClient;

  beforeAll(async () => {
    paygate = await startTestPaygate({ ...TEST_TIMERS });
    client = await PaygateClient.withNewMerchant(paygate.url);
  });

  afterAll(async () => {
    await paygate?.close();
  });

  it('refuses a mistyped card number without echoing it, and answers an unknown checkout with 404', async () => {
    const ref = (await client.initialize(cardRequest())).body.data.internal_reference as string;
    const paymentUrl = (await client.confirm(ref)).body.data.payment_url as string;
    const refused = await fetch(paymentUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ card_number: '4242424242424241', expiry: '12/40', cvv: '123' }).toString(),
    });
    expect(refused.status).toBe(400);
    const html = await refused.text();
    expect(html).toContain('name="card_number"');
    expect(html).not.toContain('4242424242424241');
    expect((await client.collection(ref)).body.data).toMatchObject({ transaction_status: 'PENDING' });
    expect((await fetch(`${new URL(paymentUrl).origin}/sandbox/card/checkout/cs_unknown`)).status).toBe(404);
  });
});

describeWithService('chromium', 'hosted card checkout in headless Chromium (standalone)', (executablePath) => {
  let paygate: InProcessPaygate;
  let shop: Shop;
  let browser: Browser;
  let client: PaygateClient;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    paygate = await startTestPaygate({ ...TEST_TIMERS });
    shop = await startShop();
    browser = await chromium.launch({
      executablePath,
      headless: true,
      // Bounded below jest's timeout, so a browser that cannot start says so instead of timing out the hook.
      timeout: 30_000,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    client = await PaygateClient.withNewMerchant(paygate.url);
  });

  afterAll(async () => {
    await browser?.close();
    await shop?.close();
    await paygate?.close();
  });

  beforeEach(async () => {
    // A fresh context per case: no cookies or history carried from one checkout to the next.
    context = await browser.newContext();
    // Well inside jest's 60 s, so a stuck page fails with Playwright's message about what it waited for.
    context.setDefaultTimeout(15_000);
    page = await context.newPage();
  });

  afterEach(async () => {
    await context?.close();
  });

  it.each(CASES)('$name', async ({ card, mistypedFirst, cancel, status, message }) => {
    const merchantReference = uniqueReference('browser');
    const redirectUrl = `${shop.origin}/paid?order=7`;
    const init = await client.initialize(
      cardRequest({ merchant_reference: merchantReference, require_confirmation: true, redirect_url: redirectUrl }),
    );
    expect(init.status).toBe(202);
    const ref = init.body.data.internal_reference as string;
    const confirm = await client.confirm(ref);
    expect(confirm.status).toBe(202);
    const paymentUrl = confirm.body.data.payment_url as string;

    const shown = await page.goto(paymentUrl);
    expect(shown?.status()).toBe(200);
    expect(await page.title()).toBe('Pay by card');

    if (mistypedFirst) {
      await fillCard(page, mistypedFirst);
      await page.click('#pay');
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(await alert.textContent()).toContain('Enter a valid card number.');
      // The error page must not echo the number back: neither as typed nor as digits.
      const html = await page.content();
      expect(html).not.toContain(mistypedFirst);
      expect(html).not.toContain(mistypedFirst.replace(/ /g, ''));
      expect(await page.inputValue('#card_number')).toBe('');
      expect(await page.getAttribute('#card_number', 'aria-describedby')).toBe('form-errors');
      expect(page.url()).toBe(paymentUrl);
    }

    await fillCard(page, card);
    await page.click(cancel ? '#cancel' : '#pay');
    // Checkout → gateway return (303) → the shop's redirect_url (303): the browser follows both.
    await page.waitForURL((url) => url.origin === shop.origin && url.pathname === '/paid');

    const landed = new URL(page.url());
    expect(shop.requests).toContain(`${landed.pathname}${landed.search}`);
    expect(await page.textContent('h1')).toBe('Thank you for your order');
    for (const field of REDIRECT_FIELDS)
      expect([field, landed.searchParams.get(field)]).toEqual([field, expect.stringMatching(/./)]);
    expect(landed.searchParams.get('order')).toBe('7');
    expect(page.url()).not.toContain(card.replace(/ /g, ''));

    const query = client.verifyRedirect(page.url());
    expect(Object.fromEntries(query)).toMatchObject({
      internal_reference: ref,
      merchant_reference: merchantReference,
      transaction_status: status,
      status_message: message,
    });
    // A negative control: the same query with another status must not verify.
    const tampered = new URL(landed);
    tampered.searchParams.set('transaction_status', status === 'COMPLETED' ? 'FAILED' : 'COMPLETED');
    expect(() => client.verifyRedirect(tampered.toString())).toThrow(/does not verify/);

    expect(await client.finalState(ref)).toMatchObject({
      internal_reference: ref,
      transaction_status: status,
      status_message: message,
    });
  });
});
