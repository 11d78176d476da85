/**
 * The merchant dashboard in headless Chromium (playwright-core driving the system browser), one
 * flow (dashboard-flow.ts) against the two ways Paygate runs: `npm start`, and the distributed
 * layout of README's "Distributed mode" on PostgreSQL and Kafka. Both start from dist/ (built
 * here when a run comes before `npm run build`). Screenshots go to reports/dashboard/.
 */
import { describeWithService, PaygateClient } from '@paygate/testing';
import { csrfOf, signedInUser } from './dashboard-http';
import { useLayout } from './browser-harness';
import { dashboardFlow } from './dashboard-flow';
import { firstRunFlow } from './first-run-flow';
import { startDistributed, startStandalone } from './layouts';

describe('the dashboard under npm start (node dist/apps/standalone/main.js)', () => {
  const running = useLayout(startStandalone);

  it("prints the dashboard's address and the demo owner's sign-in", () => {
    const { layout } = running();
    expect(layout.output()).toContain(`  dashboard:    ${layout.url}/dashboard\n`);
    expect(layout.output()).toMatch(/ {4}sign in as owner-[a-z0-9]+@demo\.paygate\.test, password \S+\n/);
  });

  describeWithService('chromium', 'the dashboard flow in headless Chromium', (executablePath) => {
    firstRunFlow(executablePath, running);
    dashboardFlow(executablePath, running);
  });
});

describeWithService('postgres', 'the dashboard in distributed mode (PostgreSQL)', (postgres) =>
  describeWithService('kafka', 'and Kafka: apps from dist/, each its own process', (brokerUrl) => {
    const running = useLayout(() => startDistributed(postgres, brokerUrl));

    it('a session started on one gateway is served by the other, and its forms post there', async () => {
      const { layout } = running();
      const second = layout.secondGatewayUrl!;
      const merchant = await PaygateClient.withNewMerchant(layout.url, layout.adminToken, 'Two gateways');
      const { browser } = await signedInUser(layout.url, layout.adminToken, merchant.merchant.id);
      const overview = await browser.get(`${second}/dashboard/overview`);
      expect(overview.status).toBe(200);
      const settings = await browser.get(`${second}/dashboard/settings`);
      const rotated = await browser.post(`${second}/dashboard/settings/signing-key`, { _csrf: csrfOf(settings) });
      expect(rotated.status).toBe(200);
      expect(rotated.text).toContain('New signing key');
      expect(await browser.post(`${layout.url}/dashboard/sign-out`, { _csrf: csrfOf(overview) })).toMatchObject({
        status: 303,
      });
      expect(await browser.get(`${second}/dashboard/overview`)).toMatchObject({
        status: 303,
        location: '/dashboard/sign-in',
      });
    });
    describeWithService('chromium', 'the dashboard flow in headless Chromium', (executablePath) =>
      dashboardFlow(executablePath, running),
    );
  }),
);
