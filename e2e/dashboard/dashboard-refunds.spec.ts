/**
 * Refunds from the dashboard over HTTP, as a browser without JavaScript uses them: an owner refunds
 * part of a completed collection from its page, seeing what is left to refund; the same form posted
 * twice is one refund; a refusal is answered on the page and changes nothing; developers and viewers
 * get no Refund button and 403 if they post anyway; the refund is in the activity log and its hold
 * on the wallet page. The browser suite (dashboard-browser.spec.ts) walks the owner's refund in Chromium.
 */
import { eventually, mobileMoneyRequest, PaygateClient, TEST_ADMIN_TOKEN } from '@paygate/testing';
import type { InProcessPaygate } from '@paygate/standalone';
import { startCallbackTestPaygate } from '../standalone/test-paygate';
import { csrfOf, signedInUser, type Browser, type Page } from './dashboard-http';

const referenceOf = (page: Page) => /name="refund_reference" value="([^"]+)"/.exec(page.text)?.[1] ?? '';
const leftOf = (page: Page) => /Left to refund: <strong>([^<]+)<\/strong>/.exec(page.text)?.[1];

describe('the dashboard: refunds', () => {
  let paygate: InProcessPaygate;
  let merchant: PaygateClient;
  let owner: Browser;
  let developer: Browser;
  let viewer: Browser;

  /** A COMPLETED collection of UGX 81,000, its credit in the wallet. */
  async function completed(): Promise<string> {
    const accepted = await merchant.initialize(mobileMoneyRequest({ require_confirmation: false }));
    const internal = accepted.body.data.internal_reference as string;
    expect(await merchant.finalState(internal)).toMatchObject({ transaction_status: 'COMPLETED' });
    // The wallet is credited a moment after the collection completes; a refund is held on it.
    await eventually(
      async () => {
        const { body } = await merchant.request<{ currency: string; balance: number }[]>('GET', '/v1/wallet-balances', {
          secret: true,
        });
        return body.data.some((wallet) => wallet.currency === 'UGX' && wallet.balance >= 79_785) || undefined;
      },
      10_000,
      'the collection credited to the wallet',
    );
    return internal;
  }

  const refunds = async (internal: string) =>
    (
      await merchant.request<{ refunds: { refund_reference: string; amount: number; reason: string | null }[] }>(
        'GET',
        `/v1/refunds?internal_reference=${internal}`,
        { secret: true },
      )
    ).body.data.refunds;

  beforeAll(async () => {
    paygate = await startCallbackTestPaygate();
    merchant = await PaygateClient.withNewMerchant(paygate.url, TEST_ADMIN_TOKEN, 'Refunding merchant');
    [owner, developer, viewer] = await Promise.all(
      (['owner', 'developer', 'viewer'] as const).map(
        async (role) => (await signedInUser(paygate.url, TEST_ADMIN_TOKEN, merchant.merchant.id, role)).browser,
      ),
    );
  });
  afterAll(() => paygate?.close());

  it('an owner refunds part of a completed collection; what is left shrinks, the refund is listed and logged', async () => {
    const internal = await completed();
    const page = await owner.get(`/dashboard/collections/${internal}`);
    expect(page.text).toMatch(/<h2 id="refunds-heading">Refunds<\/h2>/);
    expect(leftOf(page)).toBe('UGX 81,000');
    expect(page.text).toContain(`action="/dashboard/collections/${internal}/refund"`);

    const refunded = await owner.post(`/dashboard/collections/${internal}/refund`, {
      _csrf: csrfOf(page),
      refund_reference: referenceOf(page),
      amount: '20000',
      reason: 'Damaged in transit',
    });
    const shown = `/dashboard/collections/${internal}?refunded=${referenceOf(page)}`;
    expect(refunded).toMatchObject({ status: 303, location: shown });

    // The refunds list trails the request: the page reloads itself until it shows the refund, then no longer.
    const after = await eventually(
      async () => {
        const reloaded = await owner.get(shown);
        return reloaded.text.includes(`<td class="mono">${referenceOf(page)}</td>`) ? reloaded : undefined;
      },
      10_000,
      'the refund listed',
    );
    expect(after.text).not.toContain('<meta http-equiv="refresh" content="1" />');
    expect(await refunds(internal)).toEqual([
      expect.objectContaining({ refund_reference: referenceOf(page), amount: 20000, reason: 'Damaged in transit' }),
    ]);
    expect(after.text).toContain('Refund requested: it stays PENDING until the provider answers');
    expect(leftOf(after)).toBe('UGX 61,000');
    expect(after.text).toContain(`<td class="mono">${referenceOf(page)}</td>`);
    expect(after.text).toContain('UGX 20,000');
    // A new form, a new reference: another refund is another request.
    expect(referenceOf(after)).not.toBe(referenceOf(page));

    const settings = (await owner.get('/dashboard/settings')).text;
    const activity = settings.slice(settings.indexOf('id="activity-heading"'));
    expect(activity).toContain('Refund requested');
    expect(activity).toContain(`UGX 20,000 of ${internal} (${referenceOf(page)})`);

    const wallet = (await owner.get('/dashboard/wallet')).text;
    expect(wallet).toMatch(/<th scope="col">On hold<\/th>/);
    expect(wallet).toContain('Hold placed (REFUND)');
  });

  it('a page told of a refund it does not list yet reloads itself', async () => {
    const internal = await completed();
    const page = await owner.get(`/dashboard/collections/${internal}?refunded=dashboard-not-listed-yet`);
    expect(page.text).toContain('Refund requested');
    expect(page.text).toContain('<meta http-equiv="refresh" content="1" />');
  });

  it('the same form posted twice is one refund', async () => {
    const internal = await completed();
    const page = await owner.get(`/dashboard/collections/${internal}`);
    const form = { _csrf: csrfOf(page), refund_reference: referenceOf(page), amount: '10000', reason: '' };
    const [first, second] = await Promise.all([
      owner.post(`/dashboard/collections/${internal}/refund`, form),
      owner.post(`/dashboard/collections/${internal}/refund`, form),
    ]);
    expect([first.status, second.status]).toEqual([303, 303]);
    // The list is a read model: it shows the refund a moment after it was accepted.
    const listed = await eventually(
      async () => {
        const found = await refunds(internal);
        return found.length > 0 ? found : undefined;
      },
      10_000,
      'the refund listed',
    );
    expect(listed).toEqual([expect.objectContaining({ refund_reference: form.refund_reference })]);
    expect(leftOf(await owner.get(`/dashboard/collections/${internal}`))).toBe('UGX 71,000');
    // Each post is in the activity log, both naming the one refund.
    expect((await owner.get('/dashboard/settings')).text).toContain(
      `UGX 10,000 of ${internal} (${form.refund_reference})`,
    );
  });

  it('an amount over what is left is refused on the page, the amount kept, and nothing refunded', async () => {
    const internal = await completed();
    const page = await owner.get(`/dashboard/collections/${internal}`);
    for (const [amount, message] of [
      ['90000', /The refund was refused: [^<]*amount[^<]*81,?000/],
      ['12.5', /The amount [^<]*: give it in UGX\./],
      ['lots', /The amount [^<]*: give it in UGX\./],
    ] as const) {
      const refused = await owner.post(`/dashboard/collections/${internal}/refund`, {
        _csrf: csrfOf(page),
        refund_reference: referenceOf(page),
        amount,
      });
      expect(refused.status).toBe(400);
      expect(refused.text).toMatch(message);
      expect(refused.text).toContain(`value="${amount}"`);
      expect(refused.text).toMatch(/<input\s+id="refund-amount"[^>]*aria-invalid="true"/);
    }
    expect(await refunds(internal)).toEqual([]);
  });

  it('developers and viewers see no Refund button, and get 403 if they post anyway', async () => {
    const internal = await completed();
    const ownerPage = await owner.get(`/dashboard/collections/${internal}`);
    for (const browser of [developer, viewer]) {
      const page = await browser.get(`/dashboard/collections/${internal}`);
      expect(page.status).toBe(200);
      expect(page.text).not.toContain('>Refund</button>');
      expect(page.text).not.toContain('/refund"');
      const posted = await browser.post(`/dashboard/collections/${internal}/refund`, {
        _csrf: csrfOf(page),
        refund_reference: referenceOf(ownerPage),
        amount: '1000',
      });
      expect(posted.status).toBe(403);
      expect(posted.text).toContain('cannot do this');
    }
    expect(await refunds(internal)).toEqual([]);
  });

  it('a collection that did not complete has no Refund button', async () => {
    const accepted = await merchant.initialize(
      mobileMoneyRequest({ require_confirmation: false, msisdn: '256772000002' }),
    );
    const internal = accepted.body.data.internal_reference as string;
    expect(await merchant.finalState(internal)).toMatchObject({ transaction_status: 'FAILED' });
    const page = await owner.get(`/dashboard/collections/${internal}`);
    expect(page.text).not.toContain('>Refund</button>');
    expect(page.text).not.toContain('id="refunds-heading"');
  });
});
