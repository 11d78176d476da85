/**
 * The merchant dashboard as a merchant's staff use it, in headless Chromium: one flow, declared
 * once per layout (dashboard-browser.spec.ts). Pages are found by the accessible names the
 * dashboard keeps stable (docs/adr/0006-dashboard.md); each step is something a person would
 * notice, and each page shown is screenshotted to reports/dashboard/<layout>-<step>.png.
 */
import { copyFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { verifyStandardWebhook } from '@paygate/signing';
import { eventually, mobileMoneyRequest, PaygateClient, uniqueReference } from '@paygate/testing';
import { accessibilityViolations } from './accessibility';
import {
  CHROMIUM_ARGS,
  navLink,
  pathOf,
  REPORTS,
  sectionNamed,
  STEP_TIMEOUT_MS,
  type Running,
} from './browser-harness';
import type { RunningLayout } from './layouts';
import { bodyOf, headersOf } from './loopback-receiver';

const root = join(__dirname, '..', '..');
/** The collections list as README shows it: rewritten only when asked (UPDATE_SCREENSHOTS=1). */
const README_SCREENSHOT = join(root, 'docs', 'images', 'dashboard-collections.png');
const PASSWORD = 'correct horse battery staple';

interface Invite {
  email: string;
  url: string;
}

/** What one step leaves for the next ones. */
interface FlowState {
  merchant?: { id: string; publicKey: string; secretKey: string; signingKey: string };
  owner?: Invite;
  viewer?: Invite;
  developer?: Invite;
  collection?: { merchantReference: string; internalReference: string; webhookId: string };
}

/** A value an earlier step should have left; a clear failure when it did not. */
function needs<T>(value: T | undefined, step: string): T {
  if (value === undefined) throw new Error(`needs step ${step} to have passed`);
  return value;
}

/** The callback attempts on a collection's page: the Callbacks table's rows of cells (not its header). */
const attemptRows = (page: Page): Locator =>
  sectionNamed(page, 'Callbacks')
    .getByRole('row')
    .filter({ has: page.getByRole('cell') });

const answeredOk = (page: Page, rows: Locator): Locator =>
  rows.filter({ has: page.getByRole('cell', { name: '200', exact: true }) });

async function admin(layout: RunningLayout, path: string, body: unknown) {
  const response = await fetch(`${layout.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${layout.adminToken}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
}

/**
 * Declares the flow's steps, in order, against `running()`'s layout. Each step opens its own
 * starting page, so a step that fails does not fail the ones that do not depend on it.
 */
export function dashboardFlow(executablePath: string, running: () => Running): void {
  const state: FlowState = {};
  let browser: Browser | undefined;
  let owner: Page;

  const url = (path: string) => `${running().layout.url}${path}`;

  /** Screenshots the page as shown, as reports/dashboard/<layout>-<step>.png; returns the file. */
  async function shot(page: Page, step: string): Promise<string> {
    mkdirSync(REPORTS, { recursive: true });
    const path = join(REPORTS, `${running().layout.name}-${step}.png`);
    await page.screenshot({ path, fullPage: true });
    return path;
  }

  async function newPage(): Promise<{ context: BrowserContext; page: Page }> {
    const context = await needs(browser, 'beforeAll (Chromium)').newContext();
    // Well inside each step's budget, so a missing element fails with what Playwright waited for.
    context.setDefaultTimeout(15_000);
    return { context, page: await context.newPage() };
  }

  /** Opens a dashboard page of a signed-in user; fails when the session is not (or no longer) there. */
  async function open(page: Page, path: string): Promise<void> {
    const response = await page.goto(url(path));
    expect([pathOf(page), response?.status()]).toEqual([path, 200]);
  }

  /** Step 3 for anyone invited: sets the password on the invite page, then signs in with it. */
  async function acceptInviteAndSignIn(page: Page, invite: Invite, role: string): Promise<void> {
    const shown = await page.goto(invite.url);
    expect(shown?.status()).toBe(200);
    await shot(page, `03-${role}-invite`);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password', exact: true }).click();
    await page.waitForURL((at) => at.pathname === '/dashboard/sign-in');
    await page.getByRole('status').filter({ hasText: 'Your password is set' }).waitFor();
    await shot(page, `03-${role}-sign-in`);
    await page.getByLabel('Email', { exact: true }).fill(invite.email);
    await page.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((at) => at.pathname === '/dashboard/overview');
    await page.getByText(invite.email).waitFor();
    await shot(page, `03-${role}-overview`);
  }

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath,
      headless: true,
      // Bounded below the hook's timeout, so a browser that cannot start says so.
      timeout: 30_000,
      args: CHROMIUM_ARGS,
    });
    ({ page: owner } = await newPage());
  }, 60_000);

  afterAll(async () => {
    // Closes every context and page the steps opened.
    await browser?.close();
  });

  it(
    '1. the admin API creates a merchant whose callbacks go to a loopback receiver, and invites an owner, a viewer and a developer',
    async () => {
      const { layout, receiver } = running();
      const created = await admin(layout, '/admin/v1/merchants', {
        name: `Dashboard merchant (${layout.name})`,
        collection_callback_url: receiver.url(),
      });
      expect(created.status).toBe(201);
      const keys = created.body.data;
      expect(keys).toMatchObject({
        id: expect.any(String),
        public_key: expect.any(String),
        secret_key: expect.any(String),
        signing_key: expect.any(String),
      });
      const merchant = {
        id: keys.id as string,
        publicKey: keys.public_key as string,
        secretKey: keys.secret_key as string,
        signingKey: keys.signing_key as string,
      };
      const invites: Partial<Record<'owner' | 'viewer' | 'developer', Invite>> = {};
      for (const role of ['owner', 'viewer', 'developer'] as const) {
        const email = `${role}-${uniqueReference(layout.name)}@shop.example.com`.toLowerCase();
        const invited = await admin(layout, `/admin/v1/merchants/${merchant.id}/users`, { email, role });
        expect([invited.status, invited.body.data?.role]).toEqual([201, role]);
        const inviteUrl = invited.body.data.invite_url as string;
        expect(inviteUrl.startsWith(`${layout.url}/dashboard/invite/`)).toBe(true);
        invites[role] = { email, url: inviteUrl };
      }
      Object.assign(state, { merchant, ...invites });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '2. a mobile money collection completes on the sandbox and its signed callback reaches the receiver',
    async () => {
      const { layout, receiver } = running();
      const merchant = needs(state.merchant, '1');
      const client = new PaygateClient(layout.url, merchant);
      const merchantReference = uniqueReference(`dashboard-${layout.name}`);
      const accepted = await client.request('POST', '/v1/collections/initialize', {
        body: mobileMoneyRequest({
          merchant_reference: merchantReference,
          msisdn: '256772000001',
          require_confirmation: false,
        }),
        secret: true,
      });
      expect(accepted.status).toBe(202);
      const internalReference = accepted.body.data.internal_reference as string;
      expect(await client.finalState(internalReference, 60_000)).toMatchObject({
        merchant_reference: merchantReference,
        transaction_status: 'COMPLETED',
      });
      const callback = await receiver.waitFor(
        (request) =>
          request.method === 'POST' &&
          bodyOf(request).event === 'transaction.completed' &&
          bodyOf(request).payload?.internal_reference === internalReference,
        `the transaction.completed callback of ${internalReference}`,
        { timeoutMs: 60_000 },
      );
      expect(verifyStandardWebhook(merchant.signingKey, headersOf(callback), callback.body)).toBe(true);
      const webhookId = needs(headersOf(callback)['webhook-id'], '2 (a webhook-id header)');
      state.collection = { merchantReference, internalReference, webhookId };
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '3. the owner sets a password through the invite link, lands on sign-in, and signs in to the overview',
    async () => {
      await acceptInviteAndSignIn(owner, needs(state.owner, '1'), 'owner');
      expect(pathOf(owner)).toBe('/dashboard/overview');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '4. the overview shows its heading and the "Collections by day" chart (an SVG image)',
    async () => {
      await open(owner, '/dashboard/overview');
      await owner.getByRole('heading', { level: 1, name: 'Overview', exact: true }).waitFor();
      await shot(owner, '04-overview');
      await owner
        .getByRole('img', { name: /^Collections by day/ })
        .and(owner.locator('svg'))
        .waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '4b. Sandbox: each Trigger button runs a real sandbox collection and opens it, with the outcome the event names',
    async () => {
      for (const [event, status] of [
        ['transaction.failed', 'FAILED'],
        ['transaction.cancelled', 'CANCELLED'],
      ] as const) {
        await open(owner, '/dashboard/sandbox');
        await owner.getByRole('button', { name: `Trigger ${event}`, exact: true }).click();
        await owner.waitForURL((at) => at.pathname.startsWith('/dashboard/collections/PG'));
        const reference = pathOf(owner).split('/').pop()!;
        // The sandbox answers within moments; the page shows the collection as it is when it opens.
        await eventually(
          async () => {
            await owner.reload();
            return (await owner.getByText(status, { exact: true }).count()) > 0 || undefined;
          },
          30_000,
          `${reference} ${status}`,
        );
      }
      await shot(owner, '04b-sandbox-triggered');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "4c. Wallet, Service payments and Callbacks: the ledger shows the completed collection's credit and the callbacks list its callback; each page is reached from the navigation",
    async () => {
      await open(owner, '/dashboard/overview');
      await navLink(owner, 'Wallet').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/wallet');
      await sectionNamed(owner, 'Ledger').getByRole('row').filter({ hasText: 'Collection credited' }).first().waitFor();
      await shot(owner, '04c-wallet');
      await navLink(owner, 'Service payments').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/payments');
      await owner.getByRole('heading', { level: 1, name: 'Service payments', exact: true }).waitFor();
      await shot(owner, '04c-service-payments');
      await navLink(owner, 'Callbacks').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/callbacks');
      await owner.getByRole('row').filter({ hasText: 'transaction.completed' }).first().waitFor();
      await shot(owner, '04c-callbacks');
      await navLink(owner, 'Sandbox').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/sandbox');
      await shot(owner, '04c-sandbox');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    "5. Collections: searching the merchant_reference finds the collection; its page shows the timeline and the callback's attempt",
    async () => {
      const { layout } = running();
      const { merchantReference, internalReference } = needs(state.collection, '2');
      await open(owner, '/dashboard/overview');
      await navLink(owner, 'Collections').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/collections');
      const listed = await shot(owner, '05-collections');
      if (layout.name === 'standalone' && process.env.UPDATE_SCREENSHOTS === '1') {
        mkdirSync(join(README_SCREENSHOT, '..'), { recursive: true });
        copyFileSync(listed, README_SCREENSHOT);
      }
      const search = owner.getByRole('searchbox', { name: 'Search', exact: true });
      await search.fill(merchantReference);
      await search.press('Enter');
      await owner.waitForURL(
        (at) => at.pathname === '/dashboard/collections' && [...at.searchParams.values()].includes(merchantReference),
      );
      const link = owner.getByRole('row').getByRole('link', { name: merchantReference, exact: true });
      await link.waitFor();
      await shot(owner, '05-collections-search');

      await link.click();
      await owner.waitForURL((at) => at.pathname === `/dashboard/collections/${internalReference}`);
      await shot(owner, '05-collection');
      await owner.getByRole('heading', { level: 1, name: merchantReference }).waitFor();
      const timeline = sectionNamed(owner, 'Timeline');
      await timeline
        .getByText(/collection initiated/i)
        .first()
        .waitFor();
      await timeline
        .getByText(/collection completed/i)
        .first()
        .waitFor();
      await answeredOk(owner, attemptRows(owner)).first().waitFor();
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '6. Resend: the page refreshes itself until the new attempt is listed, and the receiver gets the callback again under its webhook-id',
    async () => {
      const { receiver } = running();
      const { internalReference, webhookId } = needs(state.collection, '2');
      await open(owner, `/dashboard/collections/${internalReference}`);
      const attempts = attemptRows(owner);
      await attempts.first().waitFor();
      const before = await attempts.count();
      const okBefore = await answeredOk(owner, attempts).count();
      const mark = receiver.received.length;

      await owner.getByRole('button', { name: 'Resend', exact: true }).click();
      // No script: the page's meta refresh reloads it until the attempt is there. Counting may
      // meet a page mid-reload; eventually tries again.
      const after = await eventually(
        async () => {
          const count = await attempts.count();
          return count > before ? count : undefined;
        },
        45_000,
        `a new row in the Callbacks table (had ${before})`,
      );
      expect(after).toBe(before + 1);
      expect(pathOf(owner)).toBe(`/dashboard/collections/${internalReference}`);
      await eventually(
        async () => ((await answeredOk(owner, attempts).count()) === okBefore + 1 ? true : undefined),
        45_000,
        'the new attempt answered 200',
      );
      await shot(owner, '06-resent');

      const resent = await receiver.waitFor(
        (request) => request.method === 'POST' && headersOf(request)['webhook-id'] === webhookId,
        `the resent callback (webhook-id ${webhookId})`,
        { from: mark },
      );
      expect(bodyOf(resent)).toMatchObject({
        event: 'transaction.completed',
        payload: { internal_reference: internalReference },
      });
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '6b. Refund: the owner refunds part of the completed collection from its page; what is left shrinks and the refund is listed',
    async () => {
      const { internalReference } = needs(state.collection, '2');
      await open(owner, `/dashboard/collections/${internalReference}`);
      const refunds = sectionNamed(owner, 'Refunds');
      await refunds.getByText('Left to refund: UGX 81,000').waitFor();
      await shot(owner, '06b-refund-form');
      await refunds.getByLabel('Amount (UGX)', { exact: true }).fill('20000');
      await refunds.getByLabel('Reason (optional)', { exact: true }).fill('Returned by the customer');
      await refunds.getByRole('button', { name: 'Refund', exact: true }).click();
      await owner.waitForURL(
        (at) => at.pathname === `/dashboard/collections/${internalReference}` && at.searchParams.has('refunded'),
      );
      await owner.getByRole('status').filter({ hasText: 'Refund requested' }).waitFor();
      await refunds.getByText('Left to refund: UGX 61,000').waitFor();
      await refunds
        .getByRole('row')
        .filter({ has: owner.getByRole('cell', { name: 'UGX 20,000', exact: true }) })
        .filter({ hasText: 'Returned by the customer' })
        .waitFor();
      await shot(owner, '06b-refunded');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '6c. Payouts: the owner checks the number, sees the account holder’s name, sends the payout and finds it listed',
    async () => {
      await navLink(owner, 'Payouts').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/payouts');
      const newPayout = sectionNamed(owner, 'New payout');
      await newPayout.getByLabel('Provider', { exact: true }).selectOption({ label: 'MTN Mobile Money Uganda (UGX)' });
      await newPayout.getByLabel('Mobile money number', { exact: true }).fill('256772000001');
      await newPayout.getByLabel('Amount', { exact: true }).fill('10000');
      await newPayout.getByRole('button', { name: 'Check name', exact: true }).click();
      const holder = await newPayout.getByText('Account holder of 256772000001:').textContent();
      expect(holder).toMatch(/Account holder of 256772000001: \S/);
      await shot(owner, '06c-payout-name-check');
      await newPayout.getByRole('button', { name: 'Send payout', exact: true }).click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/payouts' && at.searchParams.has('sent'));
      await owner.getByRole('status').filter({ hasText: 'Payout sent' }).waitFor();
      await sectionNamed(owner, 'Recent payouts')
        .getByRole('row')
        .filter({ has: owner.getByRole('cell', { name: 'UGX 10,000', exact: true }) })
        .waitFor();
      await shot(owner, '06c-payout-sent');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '7. Settings: Rotate signing key shows the new key once; Send test callback is signed with the new key, not the old',
    async () => {
      const { receiver } = running();
      const merchant = needs(state.merchant, '1');
      await open(owner, '/dashboard/overview');
      await navLink(owner, 'Settings').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/settings');
      await shot(owner, '07-settings');

      await owner.getByRole('button', { name: 'Rotate signing key', exact: true }).click();
      const shownKey = owner.getByLabel('New signing key', { exact: true });
      await shownKey.waitFor();
      const newKey = await shownKey.inputValue();
      expect(newKey).toMatch(/\S{16,}/);
      expect(newKey).not.toBe(merchant.signingKey);
      expect(await shownKey.isEditable()).toBe(false);
      // Beside the field: in the element that holds it.
      await shownKey.locator('xpath=..').getByRole('button', { name: 'Copy', exact: true }).waitFor();
      await shot(owner, '07-new-signing-key');

      const mark = receiver.received.length;
      await owner.getByRole('button', { name: 'Send test callback', exact: true }).click();
      const test = await receiver.waitFor((request) => request.method === 'POST', 'the test callback', {
        from: mark,
      });
      await shot(owner, '07-test-callback-sent');
      expect(verifyStandardWebhook(newKey, headersOf(test), test.body)).toBe(true);
      expect(verifyStandardWebhook(merchant.signingKey, headersOf(test), test.body)).toBe(false);

      // Settings opened again (a new GET, never a resubmitted form) no longer holds the key.
      await navLink(owner, 'Settings').click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/settings');
      await owner.getByRole('button', { name: 'Rotate signing key', exact: true }).waitFor();
      expect(await owner.getByLabel('New signing key', { exact: true }).count()).toBe(0);
      expect(await owner.content()).not.toContain(newKey);
      await shot(owner, '07-settings-again');
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '7b. every page meets WCAG 2.1 A and AA as axe-core checks it: contrast, names, labels, landmarks',
    async () => {
      const { internalReference } = needs(state.collection, '2');
      // axe runs as an injected script, which the dashboard's CSP forbids: this context alone bypasses it.
      const context = await needs(browser, 'beforeAll (Chromium)').newContext({
        storageState: await owner.context().storageState(),
        bypassCSP: true,
      });
      try {
        const page = await context.newPage();
        for (const path of [
          '/dashboard/overview',
          '/dashboard/collections',
          `/dashboard/collections/${internalReference}`,
          '/dashboard/callbacks',
          '/dashboard/payments',
          '/dashboard/wallet',
          '/dashboard/payouts',
          '/dashboard/settings',
          '/dashboard/sandbox',
        ]) {
          await page.goto(url(path));
          expect(pathOf(page)).toBe(path);
          expect({ path, violations: await accessibilityViolations(page) }).toEqual({ path, violations: [] });
        }
        await context.clearCookies();
        await page.goto(url('/dashboard/sign-in'));
        expect({ path: 'sign-in', violations: await accessibilityViolations(page) }).toEqual({
          path: 'sign-in',
          violations: [],
        });
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '8. Sign out returns to sign-in, and the old session cookie no longer opens the overview',
    async () => {
      await open(owner, '/dashboard/overview');
      const session = needs(
        (await owner.context().cookies(url('/dashboard'))).find((cookie) => cookie.name === 'paygate_session'),
        '3 (a session cookie)',
      );
      await owner.getByRole('button', { name: 'Sign out', exact: true }).click();
      await owner.waitForURL((at) => at.pathname === '/dashboard/sign-in');
      await owner.getByRole('button', { name: 'Sign in', exact: true }).waitFor();
      await shot(owner, '08-signed-out');

      // A browser holding a copy of the cookie is signed out too.
      const { context, page } = await newPage();
      try {
        await context.addCookies([session]);
        await page.goto(url('/dashboard/overview'));
        expect(pathOf(page)).toBe('/dashboard/sign-in');
      } finally {
        await context.close();
      }
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '9. a viewer signs in, sees no Rotate signing key, and posting the rotation from their page answers 403',
    async () => {
      const { page } = await newPage();
      await acceptInviteAndSignIn(page, needs(state.viewer, '1'), 'viewer');
      await navLink(page, 'Settings').click();
      await page.waitForURL((at) => at.pathname === '/dashboard/settings');
      await shot(page, '09-viewer-settings');
      expect(await page.getByRole('button', { name: 'Rotate signing key' }).count()).toBe(0);

      // What a hand-made form would send: the viewer's cookies and the CSRF token of their page.
      const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
      const refused = await page.request.post(url('/dashboard/settings/signing-key'), {
        form: { _csrf: csrf },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
      // The control: the same cookies and token are good for what a viewer may post (signing out).
      const signedOut = await page.request.post(url('/dashboard/sign-out'), { form: { _csrf: csrf }, maxRedirects: 0 });
      expect([signedOut.status(), signedOut.headers().location]).toEqual([303, '/dashboard/sign-in']);
    },
    STEP_TIMEOUT_MS,
  );

  it(
    '10. a developer sees the collection’s refunds but no Refund button, and posting a refund from their page answers 403',
    async () => {
      const { internalReference } = needs(state.collection, '2');
      const { page } = await newPage();
      await acceptInviteAndSignIn(page, needs(state.developer, '1'), 'developer');
      await open(page, `/dashboard/collections/${internalReference}`);
      const refunds = sectionNamed(page, 'Refunds');
      await refunds.getByRole('cell', { name: 'UGX 20,000', exact: true }).waitFor();
      await shot(page, '10-developer-collection');
      expect(await page.getByRole('button', { name: 'Refund', exact: true }).count()).toBe(0);
      expect(await page.getByLabel('Amount (UGX)').count()).toBe(0);

      const csrf = await page.locator('input[name="_csrf"]').first().inputValue();
      const refused = await page.request.post(url(`/dashboard/collections/${internalReference}/refund`), {
        form: { _csrf: csrf, refund_reference: `developer-${Date.now()}`, amount: '1000' },
        maxRedirects: 0,
      });
      expect(refused.status()).toBe(403);
    },
    STEP_TIMEOUT_MS,
  );
}
