/**
 * Payouts from the dashboard over HTTP, as a browser without JavaScript uses them: an owner checks the number's
 * account holder, sees the name, then sends the payout; the same form posted twice is one payout; a number that cannot
 * receive is refused before anything is held; a payout above the approval threshold waits, shows no Approve button to
 * the owner who sent it, and is approved by another owner; developers and viewers get no payout form and 403 if they
 * post anyway; each action is in the activity log.
 */
import { eventually, PaygateClient, TEST_ADMIN_TOKEN, topUpWallet, walletWithoutHolds } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';
import { csrfOf, signedInUser, type Browser, type Page } from './dashboard-http';

const PAYOUTS = '/dashboard/payouts';
const referenceOf = (page: Page) => /name="payout_reference" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
const hidden = (page: Page, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(page.text)?.[1] ?? '';

describe('the dashboard: payouts', () => {
  let paygate: InProcessPaygate;
  let merchant: PaygateClient;
  let owner: Browser;
  let otherOwner: Browser;
  let developer: Browser;
  let viewer: Browser;

  const payouts = async () =>
    (
      await merchant.request<{ payouts: { payout_reference: string; status: string; recipient_name: string }[] }>(
        'GET',
        '/v1/payouts?limit=100',
        { secret: true },
      )
    ).body.data.payouts;

  /** The name check of `msisdn` for `amount`, as the owner posts it from the page. */
  async function checked(browser: Browser, msisdn: string, amount: string): Promise<Page> {
    const page = await browser.get(PAYOUTS);
    return browser.post(`${PAYOUTS}/check`, { _csrf: csrfOf(page), provider_code: 'mtn_momo_ug', msisdn, amount });
  }

  /** Send payout, from the checked page's form. */
  const send = (browser: Browser, page: Page) =>
    browser.post(PAYOUTS, {
      _csrf: csrfOf(page),
      payout_reference: referenceOf(page),
      provider_code: hidden(page, 'provider_code'),
      msisdn: hidden(page, 'msisdn'),
      amount: hidden(page, 'amount'),
      recipient_name: hidden(page, 'recipient_name'),
    });

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
    merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Paying-out merchant');
    await topUpWallet(paygate.url, merchant.merchant.id, 1_000_000);
    [owner, otherOwner, developer, viewer] = await Promise.all(
      (['owner', 'owner', 'developer', 'viewer'] as const).map(
        async (role) => (await signedInUser(paygate.url, TEST_ADMIN_TOKEN, merchant.merchant.id, role)).browser,
      ),
    );
  });
  afterAll(() => paygate?.close());

  it('an owner sees the account holder’s name before Send payout, sends it, and finds it listed and logged', async () => {
    const page = await checked(owner, '256772000001', '20000');
    expect(page.status).toBe(200);
    expect(page.text).toMatch(/Account holder of <span class="mono">256772000001<\/span>: <strong>[^<]+<\/strong>/);
    expect(page.text).toContain('>Send payout</button>');
    expect(page.text).toContain('Amount: UGX 20,000');
    const holder = hidden(page, 'recipient_name');
    expect(holder).not.toBe('');

    const sent = await send(owner, page);
    const reference = referenceOf(page);
    expect(sent).toMatchObject({ status: 303, location: `${PAYOUTS}?sent=${reference}` });
    // The list is a read model: it shows the payout a moment after it was accepted.
    const payout = await eventually(
      async () => (await payouts()).find((found) => found.payout_reference === reference),
      10_000,
      'the payout listed',
    );
    expect(payout).toMatchObject({ payout_reference: reference, recipient_name: holder });
    await eventually(
      async () =>
        (await payouts()).find((found) => found.payout_reference === reference)?.status === 'COMPLETED' || undefined,
      15_000,
      'the payout completed',
    );

    const after = await owner.get(`${PAYOUTS}?sent=${reference}`);
    expect(after.text).not.toContain('http-equiv="refresh"');
    expect(after.text).toContain('Payout sent:');
    expect(after.text).toContain(`<td class="mono">${reference}</td>`);
    expect(after.text).toContain('UGX 20,000');
    const settings = (await owner.get('/dashboard/settings')).text;
    const activity = settings.slice(settings.indexOf('id="activity-heading"'));
    expect(activity).toContain('Payout sent');
    expect(activity).toContain(`UGX 20,000 to 256772000001 (${reference})`);
  });

  it('the same form posted twice is one payout', async () => {
    const page = await checked(owner, '256772000001', '10000');
    const [first, second] = await Promise.all([send(owner, page), send(owner, page)]);
    expect([first.status, second.status]).toEqual([303, 303]);
    const listed = await eventually(
      async () => {
        const found = (await payouts()).filter((payout) => payout.payout_reference === referenceOf(page));
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the payout listed',
    );
    expect(listed).toHaveLength(1);
  });

  it('a number that cannot receive is refused at the name check: no Send payout, nothing held', async () => {
    // The payouts before this one may still be settling: start from a wallet holding nothing.
    const before = await walletWithoutHolds(merchant);
    const page = await checked(owner, '256772000003', '10000');
    expect(page.status).toBe(400);
    expect(page.text).toMatch(/role="alert"[^>]*>[^<]*(cannot receive)/);
    expect(page.text).not.toContain('>Send payout</button>');
    expect(page.text).toContain('value="256772000003"');
    expect(await walletWithoutHolds(merchant)).toEqual(before);
  });

  it('an amount the wallet cannot cover is refused on the page, and nothing is held', async () => {
    // The payouts before this one may still be settling: start from a wallet holding nothing.
    const before = await walletWithoutHolds(merchant);
    const page = await checked(owner, '256772000001', '5000000');
    const refused = await send(owner, page);
    expect(refused.status).toBe(400);
    expect(refused.text).toMatch(/The payout was refused: [^<]*available/);
    expect((await payouts()).some((found) => found.payout_reference === referenceOf(page))).toBe(false);
    expect(await walletWithoutHolds(merchant)).toEqual(before);
  });

  it('above the approval threshold it waits; the owner who sent it has no Approve button, another owner approves it', async () => {
    const patched = await fetch(`${paygate.url}/admin/v1/merchants/${merchant.merchant.id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TEST_ADMIN_TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ payout_approval_threshold: 50_000 }),
    });
    expect(patched.status).toBe(200);
    const page = await checked(owner, '256772000001', '60000');
    expect((await send(owner, page)).status).toBe(303);
    const reference = referenceOf(page);
    const approveAction = `action="${PAYOUTS}/${reference}/approve"`;
    const waitingFor = (browser: Browser) =>
      eventually(
        async () => {
          const shown = await browser.get(PAYOUTS);
          return shown.text.includes(`<td class="mono">${reference}</td>`) ? shown : undefined;
        },
        10_000,
        'the payout listed as waiting',
      );

    const mine = await waitingFor(owner);
    expect(mine.text).not.toContain(approveAction);
    expect(mine.text).toContain('another owner approves it');
    const refused = await owner.post(`${PAYOUTS}/${reference}/approve`, { _csrf: csrfOf(mine) });
    expect(refused.status).toBe(400);
    expect(refused.text).toContain('must be approved by another owner');

    const theirs = await waitingFor(otherOwner);
    expect(theirs.text).toContain(approveAction);
    const approved = await otherOwner.post(`${PAYOUTS}/${reference}/approve`, { _csrf: csrfOf(theirs) });
    expect(approved).toMatchObject({ status: 303, location: `${PAYOUTS}?approved=${reference}` });
    await eventually(
      async () =>
        (await payouts()).find((found) => found.payout_reference === reference)?.status === 'COMPLETED' || undefined,
      15_000,
      'the approved payout completed',
    );
    const settings = (await otherOwner.get('/dashboard/settings')).text;
    expect(settings.slice(settings.indexOf('id="activity-heading"'))).toContain(`Payout approved`);
  });

  it('a page told of a payout it does not list yet reloads itself', async () => {
    const page = await owner.get(`${PAYOUTS}?sent=dashboard-not-listed-yet`);
    expect(page.text).toContain('Payout sent:');
    expect(page.text).toContain('<meta http-equiv="refresh" content="1" />');
  });

  it('developers and viewers see the payouts but no form, and get 403 if they post anyway', async () => {
    const ownerPage = await checked(owner, '256772000001', '1000');
    const before = (await payouts()).length;
    for (const browser of [developer, viewer]) {
      const page = await browser.get(PAYOUTS);
      expect(page.status).toBe(200);
      expect(page.text).toContain('id="payouts-heading"');
      expect(page.text).not.toContain('>Check name</button>');
      for (const path of [`${PAYOUTS}/check`, PAYOUTS]) {
        const posted = await browser.post(path, {
          _csrf: csrfOf(page),
          payout_reference: referenceOf(ownerPage),
          provider_code: 'mtn_momo_ug',
          msisdn: '256772000001',
          amount: '1000',
        });
        expect(posted.status).toBe(403);
        expect(posted.text).toContain('cannot do this');
      }
    }
    expect((await payouts()).length).toBe(before);
  });
});
