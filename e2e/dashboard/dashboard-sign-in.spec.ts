/**
 * The dashboard's first pages over HTTP, as a browser without JavaScript uses them (docs/security.md,
 * "Dashboard users"): an invite link sets a password once, sign-in starts a session in an HttpOnly
 * cookie, the overview shows the merchant's own wallet and collections, and sign-out ends it.
 */
import { eventually, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import { Browser, csrfOf, inviteUser, PASSWORD, signedInUser } from './dashboard-http';
import type { InProcessPaygate } from '@paygate/standalone';
import { startTestPaygate } from '../standalone/test-paygate';

describe('the dashboard: invite, sign-in, overview, sign-out', () => {
  let paygate: InProcessPaygate;
  let merchant: PaygateClient;
  let other: PaygateClient;
  const invite = (merchantId: string) => inviteUser(paygate.url, TEST_ADMIN_TOKEN, merchantId);
  const signedIn = (merchantId: string) => signedInUser(paygate.url, TEST_ADMIN_TOKEN, merchantId);

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

  it('refuses a sign-in whose cookie and field match but that the server never issued', async () => {
    const { email } = await signedIn(merchant.merchant.id);
    const made = 'A'.repeat(43);
    const response = await fetch(`${paygate.url}/dashboard/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `paygate_form=${made}` },
      body: new URLSearchParams({ _csrf: made, email, password: PASSWORD }).toString(),
    });
    expect(response.status).toBe(403);
    expect(response.headers.getSetCookie().some((cookie) => cookie.startsWith('paygate_session='))).toBe(false);
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

  it('lets two merchants invite one email; a password that opens both asks which, and signs in to the one chosen', async () => {
    const email = `shared-${Date.now().toString(36)}@shop.example.com`;
    const addUser = (merchantId: string) =>
      fetch(`${paygate.url}/admin/v1/merchants/${merchantId}/users`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
        body: JSON.stringify({ email, role: 'owner' }),
      });
    const invites: string[] = [];
    for (const merchantId of [merchant.merchant.id, other.merchant.id]) {
      const answer = await addUser(merchantId);
      expect(answer.status).toBe(201);
      invites.push(((await answer.json()) as { data: { invite_url: string } }).data.invite_url);
    }
    const again = await addUser(other.merchant.id);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { message: string }).message).toContain('of this merchant');

    const browser = new Browser(paygate.url);
    for (const url of invites) {
      const form = await browser.get(url);
      expect((await browser.post(url, { _csrf: csrfOf(form), password: PASSWORD })).status).toBe(303);
    }
    const page = await browser.get('/dashboard/sign-in');
    const choose = await browser.post('/dashboard/sign-in', { _csrf: csrfOf(page), email, password: PASSWORD });
    expect(choose.status).toBe(200);
    expect(choose.text).toContain('more than one merchant account');
    expect(choose.text).toContain(`Dashboard merchant (${merchant.merchant.id})`);
    expect(choose.text).toContain(`Another merchant (${other.merchant.id})`);
    expect(choose.text).not.toContain(PASSWORD);
    expect(browser.setCookies.some((header) => header.startsWith('paygate_session='))).toBe(false);

    const chosen = await browser.post('/dashboard/sign-in', {
      _csrf: csrfOf(choose),
      email,
      password: PASSWORD,
      merchant_id: other.merchant.id,
    });
    expect(chosen).toMatchObject({ status: 303, location: '/dashboard/overview' });
    const theirs = await other.initialize(mobileMoneyRequest({ msisdn: '256772000004' }));
    const mine = await merchant.initialize(mobileMoneyRequest({ msisdn: '256772000004' }));
    const recordPage = (collection: typeof theirs) =>
      browser.get(`/dashboard/collections/${collection.body.data.internal_reference as string}`);
    await eventually(
      async () => ((await recordPage(theirs)).status === 200 ? true : undefined),
      10_000,
      'their collection',
    );
    expect((await recordPage(mine)).status).toBe(404);
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
