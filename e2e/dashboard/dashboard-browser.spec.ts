/**
 * The merchant dashboard in headless Chromium (playwright-core driving the system browser), one
 * flow (dashboard-flow.ts) against the two ways Paygate runs: `npm start`, and the distributed
 * layout of README's "Distributed mode" on PostgreSQL and Kafka. Both start from dist/ (built
 * here when a run comes before `npm run build`). Screenshots go to reports/dashboard/.
 */
import { describeWithService } from '@paygate/testing';
import { dashboardFlow, useLayout } from './dashboard-flow';
import { startDistributed, startStandalone } from './layouts';

describe('the dashboard under npm start (node dist/apps/standalone/main.js)', () => {
  const running = useLayout(startStandalone);

  it("prints the dashboard's address and the demo owner's sign-in", () => {
    const { layout } = running();
    expect(layout.output()).toContain(`  dashboard:    ${layout.url}/dashboard\n`);
    expect(layout.output()).toMatch(/ {4}sign in as owner-[a-z0-9]+@demo\.paygate\.test, password \S+\n/);
  });

  describeWithService('chromium', 'the dashboard flow in headless Chromium', (executablePath) =>
    dashboardFlow(executablePath, running),
  );
});

describeWithService('postgres', 'the dashboard in distributed mode (PostgreSQL)', (postgres) =>
  describeWithService('kafka', 'and Kafka: apps from dist/, each its own process', (brokerUrl) => {
    const running = useLayout(() => startDistributed(postgres, brokerUrl));
    describeWithService('chromium', 'the dashboard flow in headless Chromium', (executablePath) =>
      dashboardFlow(executablePath, running),
    );
  }),
);
