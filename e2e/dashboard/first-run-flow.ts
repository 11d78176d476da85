/** README's first run in Chromium: the sign-in npm start prints finds the collection its printed keys made. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { eventually } from '@paygate/testing';
import { CHROMIUM_ARGS, navLink, REPORTS, STEP_TIMEOUT_MS, type Running } from './browser-harness';

/** The value after `label` on a line npm start printed, e.g. `public-key:  pk_test_…`. */
function printedValue(output: string, pattern: RegExp, what: string): string {
  const match = pattern.exec(output);
  if (!match) throw new Error(`npm start did not print ${what}:\n${output}`);
  return match[1];
}

/**
 * README's promise to a new user: with only what `npm start` printed (the demo merchant's keys
 * and the demo owner's sign-in), make a collection, sign in, and find it in the collections list.
 */
export function firstRunFlow(executablePath: string, running: () => Running): void {
  it(
    'a new user signs in with what npm start printed and finds their first collection',
    async () => {
      const { layout } = running();
      const output = layout.output();
      const publicKey = printedValue(output, /public-key: {2}(\S+)/, 'the public key');
      const [, email, password] = /sign in as (\S+), password (\S+)/.exec(output) ?? [];
      expect([email, password]).toEqual([expect.any(String), expect.any(String)]);

      // The first curl npm start prints, as a new user pastes it.
      const answer = await fetch(`${layout.url}/v1/collections/initialize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'public-key': publicKey },
        body: JSON.stringify({
          merchant_reference: 'auto',
          transaction_method: 'MOBILE_MONEY',
          provider_code: 'mtn_momo_ug',
          currency: 'UGX',
          amount: 81000,
          msisdn: '256772000001',
          customer_name: 'Jane Doe',
        }),
      });
      expect(answer.status).toBe(202);
      const { data } = (await answer.json()) as { data: { internal_reference: string; merchant_reference: string } };

      const browser = await chromium.launch({ executablePath, headless: true, timeout: 30_000, args: CHROMIUM_ARGS });
      try {
        const page = await browser.newPage();
        page.setDefaultTimeout(15_000);
        await page.goto(`${layout.url}/dashboard`);
        await page.getByLabel('Email', { exact: true }).fill(email);
        await page.getByLabel('Password', { exact: true }).fill(password);
        await page.getByRole('button', { name: 'Sign in', exact: true }).click();
        await page.waitForURL((at) => at.pathname === '/dashboard/overview');
        await navLink(page, 'Collections').click();
        await page.waitForURL((at) => at.pathname === '/dashboard/collections');
        // The list reads the collections projection, which follows the write within moments: reload until it shows.
        const row = page.getByRole('row').filter({ hasText: data.internal_reference });
        await eventually(
          async () => {
            await page.reload();
            return (await row.count()) === 1 || undefined;
          },
          15_000,
          'the first collection in the list',
        );
        await row.getByRole('link', { name: data.merchant_reference, exact: true }).click();
        await page.getByRole('heading', { level: 1, name: `Collection ${data.merchant_reference}` }).waitFor();
        mkdirSync(REPORTS, { recursive: true });
        await page.screenshot({ path: join(REPORTS, `${layout.name}-first-run.png`), fullPage: true });
      } finally {
        await browser.close();
      }
    },
    STEP_TIMEOUT_MS,
  );
}
