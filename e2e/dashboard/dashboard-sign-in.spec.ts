/**
 * The dashboard's first pages over HTTP, as a browser without JavaScript uses them (docs/security.md,
 * "Dashboard users"): an invite link sets a password once, sign-in starts a session in an HttpOnly
 * cookie, the overview shows the merchant's own wallet and collections, and sign-out ends it.
 */
import { eventually, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

interface Page {
  status: number;
  text: string;
  location: string | null;
  headers: Headers;
}

/** A browser's cookie jar for one origin, and form posts as a browser sends them. */
class Browser {
  private readonly cookies = new Map<string, string>();
  readonly setCookies: string[] = [];

  constructor(private readonly base: string) {}

  async get(path: string): Promise<Page> {
    return this.request(path, { method: 'GET' });
  }

  async post(path: string, form: Record<string, string>): Promise<Page> {
    return this.request(path, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form).toString(),
    });
  }

  forget(name: string): void {
    this.cookies.delete(name);
  }

  private async request(path: string, init: RequestInit): Promise<Page> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(new URL(path, this.base), {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as Record<string, string>), ...(cookie && { cookie }) },
    });
    for (const header of response.headers.getSetCookie()) {
      this.setCookies.push(header);
      const [pair] = header.split(';');
      const [name, ...value] = pair.split('=');
      if (/Max-Age=0/.test(header)) this.cookies.delete(name);
      else this.cookies.set(name, value.join('='));
    }
    return {
      status: response.status,
      text: await response.text(),
      location: response.headers.get('location'),
      headers: response.headers,
    };
  }
}

const csrfOf = (page: Page) => /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
const PASSWORD = 'a long enough passphrase';

describe('the dashboard: invite, sign-in, overview, sign-out', () => {
  let paygate: InProcessPaygate;
  let merchant: PaygateClient;
  let other: PaygateClient;
  let sequence = 0;

  const invite = async (merchantId: string, role = 'owner') => {
    const email = `user${sequence++}-${Date.now().toString(36)}@shop.example.com`;
    const response = await fetch(`${paygate.url}/admin/v1/merchants/${merchantId}/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify({ email, role }),
    });
    expect(response.status).toBe(201);
    const { data } = (await response.json()) as { data: { invite_url: string } };
    return { email, url: data.invite_url };
  };

  /** An invited user with their password set, and a browser signed in as them. */
  const signedIn = async (merchantId: string) => {
    const { email, url } = await invite(merchantId);
    const browser = new Browser(paygate.url);
    const form = await browser.get(url);
    expect((await browser.post(url, { _csrf: csrfOf(form), password: PASSWORD })).status).toBe(303);
    const signIn = await browser.get('/dashboard/sign-in');
    const answer = await browser.post('/dashboard/sign-in', { _csrf: csrfOf(signIn), email, password: PASSWORD });
    expect(answer).toMatchObject({ status: 303, location: '/dashboard/overview' });
    return { email, browser };
  };

  beforeAll(async () => {
    paygate = await startTestPaygate();
    merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Dashboard merchant');
    other = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Another merchant');
  });
  afterAll(async () => {
    await paygate?.close();
  });

  it('sets a password once through the invite link, then signs in with it', async () => {
    const { email, url } = await invite(merchant.merchant.id);
    const browser = new Browser(paygate.url);
    const form = await browser.get(url);
    expect(form.status).toBe(200);
    expect(form.text).toContain(email);
    expect(form.text).toMatch(/<label for="password">Password<\/label>/);
    expect(form.text).toMatch(/<button type="submit">Set password<\/button>/);
    expect(form.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(form.headers.get('referrer-policy')).toBe('no-referrer');

    const short = await browser.post(url, { _csrf: csrfOf(form), password: 'too short' });
    expect(short.status).toBe(400);
    expect(short.text).toContain('12 to 256 characters');
    expect(await browser.post(url, { _csrf: csrfOf(form), password: PASSWORD })).toMatchObject({
      status: 303,
      location: '/dashboard/sign-in?welcome=1',
    });
    expect((await browser.get(url)).status).toBe(410);

    const page = await browser.get('/dashboard/sign-in?welcome=1');
    expect(page.text).toMatch(/<label for="email">Email<\/label>/);
    expect(page.text).toMatch(/<button type="submit">Sign in<\/button>/);
    const answer = await browser.post('/dashboard/sign-in', { _csrf: csrfOf(page), email, password: PASSWORD });
    expect(answer).toMatchObject({ status: 303, location: '/dashboard/overview' });
    const session = browser.setCookies.find((header) => header.startsWith('paygate_session='))!;
    expect(session).toMatch(/; Path=\/dashboard; HttpOnly; SameSite=Strict; Max-Age=43200$/);
  });

  it('answers a wrong password and an unknown email with the same message, and refuses a form without its token', async () => {
    const { email } = await signedIn(merchant.merchant.id);
    const browser = new Browser(paygate.url);
    const page = await browser.get('/dashboard/sign-in');
    const wrong = await browser.post('/dashboard/sign-in', { _csrf: csrfOf(page), email, password: `${PASSWORD}!` });
    const unknown = await browser.post('/dashboard/sign-in', {
      _csrf: csrfOf(page),
      email: 'nobody@shop.example.com',
      password: PASSWORD,
    });
    expect([wrong.status, unknown.status]).toEqual([401, 401]);
    const message = (text: string) => /role="alert" id="form-error">([^<]+)</.exec(text)?.[1];
    expect(message(wrong.text)).toBeDefined();
    expect(message(wrong.text)).toBe(message(unknown.text));
    expect(wrong.text).not.toContain(PASSWORD);

    expect((await browser.post('/dashboard/sign-in', { _csrf: 'forged', email, password: PASSWORD })).status).toBe(403);
    browser.forget('paygate_form');
    expect((await browser.post('/dashboard/sign-in', { _csrf: csrfOf(page), email, password: PASSWORD })).status).toBe(
      403,
    );
  });

  it('slows guessing: the sixth attempt in five minutes for one email answers 429, the right password included', async () => {
    const { email } = await signedIn(merchant.merchant.id);
    const browser = new Browser(paygate.url);
    const page = await browser.get('/dashboard/sign-in');
    // signedIn's own sign-in was the first attempt for this email from this address.
    for (let i = 0; i < 4; i++)
      expect(
        (await browser.post('/dashboard/sign-in', { _csrf: csrfOf(page), email, password: `guess ${i}` })).status,
      ).toBe(401);
    expect((await browser.post('/dashboard/sign-in', { _csrf: csrfOf(page), email, password: PASSWORD })).status).toBe(
      429,
    );
  });

  it("shows the merchant's own collections and wallet, never another merchant's", async () => {
    const { browser, email } = await signedIn(merchant.merchant.id);
    const mine = await merchant.initialize(mobileMoneyRequest({ msisdn: '256772000004' }));
    const theirs = await other.initialize(mobileMoneyRequest({ msisdn: '256772000004' }));
    const overview = await eventually(
      async () => {
        const page = await browser.get('/dashboard/overview');
        return page.text.includes(mine.body.data.internal_reference as string) ? page : undefined;
      },
      10_000,
      'the collection on the overview',
    );
    expect(overview.status).toBe(200);
    expect(overview.text).toContain(email);
    expect(overview.text).toContain(mine.body.data.merchant_reference as string);
    expect(overview.text).not.toContain(theirs.body.data.internal_reference as string);
    expect(overview.text).toMatch(/<h2 id="wallet-heading">Wallet<\/h2>/);
  });

  it('signs out with the session’s token only, and the session is over', async () => {
    const { browser } = await signedIn(merchant.merchant.id);
    const overview = await browser.get('/dashboard/overview');
    expect(overview.text).toMatch(/<button type="submit">Sign out<\/button>/);
    expect((await browser.post('/dashboard/sign-out', { _csrf: 'forged' })).status).toBe(403);
    expect((await browser.get('/dashboard/overview')).status).toBe(200);
    expect(await browser.post('/dashboard/sign-out', { _csrf: csrfOf(overview) })).toMatchObject({
      status: 303,
      location: '/dashboard/sign-in',
    });
    expect(await browser.get('/dashboard/overview')).toMatchObject({ status: 303, location: '/dashboard/sign-in' });
  });

  it('sends a visitor without a session to sign in, and answers an invite token nobody was given with 410', async () => {
    const browser = new Browser(paygate.url);
    expect(await browser.get('/dashboard')).toMatchObject({ status: 303, location: '/dashboard/sign-in' });
    expect(await browser.get('/dashboard/overview')).toMatchObject({ status: 303, location: '/dashboard/sign-in' });
    expect((await browser.get(`/dashboard/invite/${'A'.repeat(43)}`)).status).toBe(410);
    expect((await browser.get('/dashboard/assets/dashboard.css')).headers.get('content-type')).toContain('text/css');
  });
});
