/**
 * The dashboard's pages and actions over HTTP, as a browser without JavaScript uses them: what
 * each role sees and may do, one merchant never seeing another's data, and bad input answered
 * with a 4xx page that changes nothing. The browser suite (dashboard-browser.spec.ts) walks the
 * same pages in Chromium.
 */
import { CallbackReceiver, eventually, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';
import { Browser, csrfOf, PASSWORD, signedInUser, type Page } from './dashboard-http';

const attemptRows = (page: Page) => (page.text.match(/<tr>\s*<td>\d+<\/td>\s*<td><time/g) ?? []).length;

describe('the dashboard: pages, roles and actions', () => {
  let paygate: InProcessPaygate;
  let receiver: CallbackReceiver;
  let merchant: PaygateClient;
  let other: PaygateClient;
  let owner: Browser;
  let ownerEmail: string;
  let viewer: Browser;
  let mine: { internal: string; merchantReference: string };
  let theirs: { internal: string; merchantReference: string };

  const completed = async (client: PaygateClient) => {
    const accepted = await client.initialize(mobileMoneyRequest({ require_confirmation: false }));
    const internal = accepted.body.data.internal_reference as string;
    await client.finalState(internal);
    return { internal, merchantReference: accepted.body.data.merchant_reference as string };
  };

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
    receiver = await CallbackReceiver.start();
    merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Pages merchant', receiver.url());
    other = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Other merchant', receiver.url());
    ({ browser: owner, email: ownerEmail } = await signedInUser(
      paygate.url,
      TEST_ADMIN_TOKEN,
      merchant.merchant.id,
      'owner',
    ));
    viewer = (await signedInUser(paygate.url, TEST_ADMIN_TOKEN, merchant.merchant.id, 'viewer')).browser;
    [mine, theirs] = await Promise.all([completed(merchant), completed(other)]);
    await receiver.waitFor(mine.internal, 'transaction.completed');
  });
  afterAll(async () => {
    await paygate?.close();
    await receiver?.close();
  });

  it('overview: today and 30 days with a chart by day drawn as an image with a name', async () => {
    const page = await owner.get('/dashboard/overview');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/<h2 id="today-heading">Today<\/h2>/);
    expect(page.text).toMatch(/<svg\s+role="img"\s+aria-labelledby="outcomes-title"/);
    expect(page.text).toMatch(/<title id="outcomes-title">Collections by day and outcome, last 30 days<\/title>/);
    expect(page.text).toMatch(/Completed volume by day in UGX/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
  });

  it('search finds a collection by either reference, and never another merchant’s', async () => {
    for (const term of [mine.merchantReference, mine.internal]) {
      const page = await owner.get(`/dashboard/collections?q=${encodeURIComponent(term)}`);
      expect(page.status).toBe(200);
      expect(page.text).toContain(`href="/dashboard/collections/${mine.internal}"`);
    }
    const page = await owner.get(`/dashboard/collections?q=${theirs.merchantReference}`);
    expect(page.text).toContain('Nothing found for');
    expect(page.text).not.toContain(theirs.internal);
    expect((await owner.get(`/dashboard/collections/${theirs.internal}`)).status).toBe(404);
  });

  it('filters the list, and answers 400 naming what is wrong with a filter or a page link', async () => {
    const completedOnly = await owner.get('/dashboard/collections?status=COMPLETED&method=MOBILE_MONEY');
    expect(completedOnly.status).toBe(200);
    expect(completedOnly.text).toContain(mine.internal);
    expect((await owner.get('/dashboard/collections?status=FAILED')).text).not.toContain(mine.internal);
    for (const [query, message] of [
      ['status=PAID', 'Status must be one of'],
      ['from=2026-02-30', 'From must be a date'],
      ['from=2026-03-02&to=2026-03-01', 'From must not be after To'],
      ['after=forged', 'not one the dashboard gave'],
      ['q=%3Cscript%3E', 'Search for a merchant reference'],
      ['provider=unknown_psp', 'Provider must be one of'],
    ]) {
      const page = await owner.get(`/dashboard/collections?${query}`);
      expect({ query, status: page.status }).toEqual({ query, status: 400 });
      expect(page.text).toContain(message);
      expect(page.text).not.toContain('<script>');
    }
  });

  it('downloads the filtered list as CSV: the merchant’s own collections, one line each', async () => {
    const list = await viewer.get('/dashboard/collections?status=COMPLETED');
    expect(list.text).toContain('href="/dashboard/collections.csv?status=COMPLETED" download>Download CSV</a>');
    const download = await viewer.get('/dashboard/collections.csv?status=COMPLETED');
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(download.headers.get('content-disposition')).toMatch(
      /^attachment; filename="collections-\d{4}-\d{2}-\d{2}\.csv"$/,
    );
    const [header, ...lines] = download.text.trimEnd().split('\r\n');
    expect(header.split(',')).toEqual(
      expect.arrayContaining(['merchant_reference', 'internal_reference', 'transaction_status']),
    );
    expect(lines.some((line) => line.includes(mine.internal) && line.includes(',COMPLETED,'))).toBe(true);
    expect(download.text).not.toContain(theirs.internal);
    expect((await viewer.get('/dashboard/collections.csv?status=LOST')).status).toBe(400);
  });

  it('a collection: the record, its timeline from its events, and each callback with its attempts', async () => {
    const page = await owner.get(`/dashboard/collections/${mine.internal}`);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Collection ${mine.merchantReference}`);
    const timeline = page.text.slice(
      page.text.indexOf('id="timeline-heading"'),
      page.text.indexOf('id="callbacks-heading"'),
    );
    expect([...timeline.matchAll(/<strong>([^<]+)<\/strong>/g)].map((match) => match[1])).toEqual([
      'Collection initiated',
      'Collection confirmed',
      'PIN prompt sent',
      'Collection completed',
    ]);
    expect(page.text).toMatch(/<caption>\s*Attempts at transaction.completed\s*<\/caption>/);
    expect(attemptRows(page)).toBe(1);
    expect(page.text).toMatch(/<button type="submit">Resend<\/button>/);
  });

  it('Resend makes a new attempt under the same webhook-id, which the page shows on its own reloads', async () => {
    const before = receiver.about(mine.internal).length;
    const detail = await owner.get(`/dashboard/collections/${mine.internal}`);
    const resent = await owner.post(`/dashboard/collections/${mine.internal}/resend`, { _csrf: csrfOf(detail) });
    expect(resent).toMatchObject({ status: 303, location: `/dashboard/collections/${mine.internal}?resent=1` });
    const page = await eventually(
      async () => {
        const shown = await owner.get(`/dashboard/collections/${mine.internal}?resent=1`);
        return attemptRows(shown) === 2 ? shown : undefined;
      },
      15_000,
      'the second attempt on the page',
    );
    expect(page.text).toContain('The callbacks will be sent again');
    const received = receiver.about(mine.internal).slice(before);
    expect(received.map((callback) => callback.headers['webhook-id'])).toEqual([
      receiver.about(mine.internal)[0].headers['webhook-id'],
    ]);
  });

  it('callbacks: every callback of the merchant with its state, filtered, and none of another merchant’s', async () => {
    const all = await owner.get('/dashboard/callbacks');
    expect(all.status).toBe(200);
    expect(all.text).toContain(`href="/dashboard/collections/${mine.internal}"`);
    expect(all.text).not.toContain(theirs.internal);
    expect((await owner.get('/dashboard/callbacks?state=delivered')).text).toContain(mine.internal);
    expect((await owner.get('/dashboard/callbacks?state=abandoned')).text).not.toContain(mine.internal);
    const refused = await owner.get('/dashboard/callbacks?state=lost');
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('State must be one of pending, delivering, delivered, abandoned, undeliverable.');
    expect((await owner.get('/dashboard/callbacks?after=2026-02-30T00:00:00.000000Z~msg_1')).status).toBe(400);
  });

  it('wallet: the ledger lists the credit of each completed collection, linked to it', async () => {
    const page = await owner.get('/dashboard/wallet');
    expect(page.status).toBe(200);
    const row = new RegExp(
      `Collection credited[\\s\\S]*?\\+UGX 79,785[\\s\\S]*?/dashboard/collections/${mine.internal}`,
    );
    expect(page.text).toMatch(row);
    for (const after of ['forged', '2026-02-30T00:00:00Z~e1', '2026-11-27T24:00:00Z~e1'])
      for (const page of ['wallet', 'payments'])
        expect({ page, after, status: (await owner.get(`/dashboard/${page}?after=${after}`)).status }).toEqual({
          page,
          after,
          status: 400,
        });
  });

  it('sandbox tools: Trigger payment.completed runs a real collect-for-payment, whose PRN payment the payments page lists', async () => {
    const sandbox = await owner.get('/dashboard/sandbox');
    const triggered = await owner.post('/dashboard/sandbox/trigger', {
      _csrf: csrfOf(sandbox),
      event: 'payment.completed',
    });
    expect(triggered.status).toBe(303);
    expect(triggered.location).toMatch(/^\/dashboard\/collections\/PG[0-9A-Z]{24}$/);
    const payments = await eventually(
      async () => {
        const page = await owner.get('/dashboard/payments');
        return page.text.includes('status-completed') ? page : undefined;
      },
      20_000,
      'the PRN payment completed on the payments page',
    );
    expect(payments.text).toContain('2250000001301');
    expect(payments.text).toContain(`href="${triggered.location}"`);
    expect((await owner.post('/dashboard/sandbox/trigger', { _csrf: csrfOf(sandbox), event: 'made.up' })).status).toBe(
      400,
    );
  });

  it('sandbox tools: the refund events are paygate trigger’s, with no button here, and posting one anyway is refused', async () => {
    const sandbox = await owner.get('/dashboard/sandbox');
    expect(sandbox.text).toContain('>Trigger transaction.completed</button>');
    expect(sandbox.text).not.toMatch(/>Trigger refund\./);
    expect(sandbox.text).toContain('paygate trigger refund.completed');
    const refused = await owner.post('/dashboard/sandbox/trigger', {
      _csrf: csrfOf(sandbox),
      event: 'refund.completed',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Choose one of the events listed.');
  });

  it('a viewer sees no action, and each action posted anyway answers 403 and changes nothing', async () => {
    const settings = await viewer.get('/dashboard/settings');
    const detail = await viewer.get(`/dashboard/collections/${mine.internal}`);
    const sandbox = await viewer.get('/dashboard/sandbox');
    for (const page of [settings, detail, sandbox]) {
      expect(page.status).toBe(200);
      expect(page.text).not.toMatch(
        /<button type="submit">(Rotate signing key|Rotate API keys|Send test callback|Resend|Invite|Save callback URLs|Trigger [^<]+)<\/button>/,
      );
    }
    const csrf = csrfOf(settings);
    const attempts = receiver.received.length;
    for (const [path, form] of [
      ['/dashboard/settings/signing-key', {}],
      ['/dashboard/settings/api-keys', {}],
      ['/dashboard/settings/test-callback', {}],
      ['/dashboard/settings/callback-urls', { collection_callback_url: '' }],
      ['/dashboard/settings/users', { email: 'new@shop.example.com', role: 'owner' }],
      [`/dashboard/collections/${mine.internal}/resend`, {}],
      ['/dashboard/sandbox/trigger', { event: 'transaction.completed' }],
    ] as const) {
      const answer = await viewer.post(path, { _csrf: csrf, ...form });
      expect({ path, status: answer.status }).toEqual({ path, status: 403 });
    }
    const merchantNow = await fetch(`${paygate.url}/admin/v1/merchants/${merchant.merchant.id}`, {
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
    }).then((response) => response.json() as Promise<{ data: { collection_callback_url: string } }>);
    expect(merchantNow.data.collection_callback_url).toBe(receiver.url());
    expect((await merchant.collection(mine.internal)).status).toBe(200);
    expect(receiver.received.length).toBe(attempts);
  });

  it('an action without the session’s CSRF token answers 403', async () => {
    expect((await owner.post('/dashboard/settings/signing-key', { _csrf: 'forged' })).status).toBe(403);
    expect((await merchant.collection(mine.internal)).status).toBe(200);
  });

  it('settings: a callback URL the address guard refuses is answered inline and not saved', async () => {
    const settings = await owner.get('/dashboard/settings');
    const refused = await owner.post('/dashboard/settings/callback-urls', {
      _csrf: csrfOf(settings),
      collection_callback_url: 'ftp://files.example.com/callbacks',
      service_payments_callback_url: 'not a url',
      payouts_callback_url: 'https://169.254.169.254/payouts',
    });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('Collection callback URL: must be an http or https URL');
    expect(refused.text).toContain('Service payments callback URL: must not contain spaces or control characters');
    expect(refused.text).toContain('Payouts callback URL: must not point at link-local (169.254.0.0/16)');
    expect(refused.text).toContain('value="ftp://files.example.com/callbacks"');
    expect((await owner.get('/dashboard/settings')).text).toContain(`value="${receiver.url()}"`);

    const saved = await owner.post('/dashboard/settings/callback-urls', {
      _csrf: csrfOf(settings),
      collection_callback_url: receiver.url('/moved'),
      service_payments_callback_url: receiver.url(),
      payouts_callback_url: receiver.url('/payouts'),
    });
    expect(saved).toMatchObject({ status: 303, location: '/dashboard/settings?done=callback-urls' });
    const shown = await owner.get('/dashboard/settings?done=callback-urls');
    expect(shown.text).toContain('Callback URLs saved.');
    expect(shown.text).toContain(`value="${receiver.url('/moved')}"`);
    expect(shown.text).toMatch(
      /<input\s+id="payouts_callback_url"\s+name="payouts_callback_url"[^>]*value="[^"]*\/payouts"/,
    );
  });

  it('settings: a rotated signing key is shown once and signs the test callback; the old one no longer verifies', async () => {
    const settings = await owner.get('/dashboard/settings');
    const rotated = await owner.post('/dashboard/settings/signing-key', { _csrf: csrfOf(settings) });
    expect(rotated.status).toBe(200);
    const key = /<input id="new-signing-key" type="text" readonly value="([^"]+)"/.exec(rotated.text)?.[1];
    expect(key).toBeDefined();
    expect(rotated.text).toMatch(/<label for="new-signing-key">New signing key<\/label>/);
    expect((await owner.get('/dashboard/settings')).text).not.toContain(key!);

    const before = receiver.received.length;
    const tested = await owner.post('/dashboard/settings/test-callback', { _csrf: csrfOf(settings) });
    expect(tested.status).toBe(200);
    expect(tested.text).toMatch(/answered 200 in \d+ ms/);
    const [callback] = receiver.received.slice(before);
    expect(callback.event).toBe('test.callback');
    expect(CallbackReceiver.verify(callback, key!)).toBe(true);
    expect(CallbackReceiver.verify(callback, merchant.merchant.signingKey)).toBe(false);

    // The activity log says who did both, newest first, and holds no key.
    const activity = (await owner.get('/dashboard/settings')).text;
    const section = activity.slice(activity.indexOf('id="activity-heading"'));
    const rows = [...section.matchAll(/<td>([^<]*@[^<]*)<\/td>\s*<td>([^<]+)<\/td>\s*<td>([^<]*)<\/td>/g)].map((m) =>
      m.slice(1, 4),
    );
    expect(rows.slice(0, 2)).toEqual([
      [ownerEmail, 'Test callback sent', expect.stringMatching(/^answered 200 in \d+ ms$/)],
      [ownerEmail, 'Signing key rotated', ''],
    ]);
    expect(activity).not.toContain(key!);
  });

  it('users: an owner invites, changes a role and removes a user, whose session ends', async () => {
    const settings = await owner.get('/dashboard/settings');
    const invited = await owner.post('/dashboard/settings/users', {
      _csrf: csrfOf(settings),
      email: 'Developer@Shop.example.com',
      role: 'developer',
    });
    expect(invited.status).toBe(201);
    expect(invited.text).toMatch(/value="http:\/\/127\.0\.0\.1:\d+\/dashboard\/invite\/[A-Za-z0-9_-]{43}"/);
    expect(
      (
        await owner.post('/dashboard/settings/users', {
          _csrf: csrfOf(settings),
          email: 'developer@shop.example.com',
          role: 'viewer',
        })
      ).status,
    ).toBe(409);
    expect(
      (await owner.post('/dashboard/settings/users', { _csrf: csrfOf(settings), email: 'x', role: 'viewer' })).status,
    ).toBe(400);

    const viewerRow = /id="role-(usr_[A-Za-z0-9_-]{16})"[^>]*>[\s\S]*?<option value="viewer" selected>/.exec(
      (await owner.get('/dashboard/settings')).text,
    );
    expect(viewerRow).not.toBeNull();
    const viewerId = viewerRow![1];
    expect(
      await owner.post(`/dashboard/settings/users/${viewerId}/role`, { _csrf: csrfOf(settings), role: 'developer' }),
    ).toMatchObject({ status: 303, location: '/dashboard/settings?done=role' });
    expect((await viewer.get('/dashboard/settings')).text).toMatch(
      /<button type="submit">Rotate signing key<\/button>/,
    );

    expect(await owner.post(`/dashboard/settings/users/${viewerId}/remove`, { _csrf: csrfOf(settings) })).toMatchObject(
      { status: 303, location: '/dashboard/settings?done=removed' },
    );
    expect(await viewer.get('/dashboard/overview')).toMatchObject({ status: 303, location: '/dashboard/sign-in' });
    const activity = (await owner.get('/dashboard/settings')).text;
    expect(activity).toMatch(/<td>User removed<\/td>\s*<td>user\d+-[a-z0-9]+@shop\.example\.com<\/td>/);
    expect(activity).toMatch(
      /<td>Role changed<\/td>\s*<td>user\d+-[a-z0-9]+@shop\.example\.com is now developer<\/td>/,
    );
    expect(activity).toContain('<td>developer@shop.example.com as developer</td>');
  });

  it('an owner resets a forgotten password: the user is signed out and sets a new one with the link, once', async () => {
    const { email, browser: developer } = await signedInUser(
      paygate.url,
      TEST_ADMIN_TOKEN,
      merchant.merchant.id,
      'developer',
    );
    const settings = await owner.get('/dashboard/settings');
    const row = settings.text.split('<tr>').find((cells) => cells.includes(`<td>${email}</td>`));
    const userId = /id="role-(usr_[A-Za-z0-9_-]{16})"/.exec(row ?? '')?.[1];
    expect(userId).toBeDefined();
    const reset = await owner.post(`/dashboard/settings/users/${userId}/reset-password`, { _csrf: csrfOf(settings) });
    expect(reset.status).toBe(200);
    expect(reset.text).toContain(`The password of ${email} is reset and their sessions are ended.`);
    const link = /id="invite-link"[^>]*value="([^"]+)"/.exec(reset.text)?.[1];
    expect(link).toMatch(/\/dashboard\/invite\/[A-Za-z0-9_-]{43}$/);
    expect(await developer.get('/dashboard/overview')).toMatchObject({ status: 303, location: '/dashboard/sign-in' });

    const fresh = new Browser(paygate.url);
    const form = await fresh.get(link!);
    expect(form.status).toBe(200);
    expect((await fresh.post(link!, { _csrf: csrfOf(form), password: `${PASSWORD} anew` })).status).toBe(303);
    expect((await fresh.get(link!)).status).toBe(410);
    const signIn = await fresh.get('/dashboard/sign-in');
    const signedIn = await fresh.post('/dashboard/sign-in', {
      _csrf: csrfOf(signIn),
      email,
      password: `${PASSWORD} anew`,
    });
    expect(signedIn).toMatchObject({ status: 303, location: '/dashboard/overview' });
    expect((await owner.get('/dashboard/settings')).text).toContain(`<td>Password reset</td>`);
  });

  it('one merchant’s owner cannot act on another merchant’s collection or users', async () => {
    const settings = await owner.get('/dashboard/settings');
    expect(
      (await owner.post(`/dashboard/collections/${theirs.internal}/resend`, { _csrf: csrfOf(settings) })).status,
    ).toBe(404);
    const theirCallbacks = await other.request<{ deliveries: Array<{ state: string; attempts: unknown[] }> }>(
      'GET',
      `/v1/callbacks?internal_reference=${theirs.internal}`,
      { secret: true },
    );
    expect(theirCallbacks.body.data.deliveries.map(({ state, attempts }) => [state, attempts.length])).toEqual([
      ['delivered', 1],
    ]);

    const theirOwner = (await signedInUser(paygate.url, TEST_ADMIN_TOKEN, other.merchant.id, 'owner')).browser;
    await signedInUser(paygate.url, TEST_ADMIN_TOKEN, other.merchant.id, 'viewer');
    const theirSettings = await theirOwner.get('/dashboard/settings');
    expect(theirSettings.text).not.toContain('Pages merchant');
    const theirUser = /id="role-(usr_[A-Za-z0-9_-]{16})"/.exec(theirSettings.text)![1];
    for (const action of ['role', 'remove'])
      expect(
        (
          await owner.post(`/dashboard/settings/users/${theirUser}/${action}`, {
            _csrf: csrfOf(settings),
            role: 'owner',
          })
        ).status,
      ).toBe(404);
    expect((await theirOwner.get('/dashboard/settings')).text).toMatch(
      new RegExp(`id="role-${theirUser}"[^>]*>[\\s\\S]*?<option value="viewer" selected>`),
    );
  });

  it('a suspended merchant’s dashboard still reads, but every action answers 403', async () => {
    const suspended = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Suspended merchant');
    const { browser } = await signedInUser(paygate.url, TEST_ADMIN_TOKEN, suspended.merchant.id, 'owner');
    const patch = await fetch(`${paygate.url}/admin/v1/merchants/${suspended.merchant.id}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_ADMIN_TOKEN}` },
      body: JSON.stringify({ status: 'suspended' }),
    });
    expect(patch.status).toBe(200);
    const settings = await browser.get('/dashboard/settings');
    expect(settings.status).toBe(200);
    const rotated = await browser.post('/dashboard/settings/signing-key', { _csrf: csrfOf(settings) });
    expect(rotated.status).toBe(403);
    expect(rotated.text).toContain('This merchant account is suspended');
    expect(rotated.text).not.toContain('New signing key');
  });
});
