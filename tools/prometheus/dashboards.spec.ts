import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { stringify } from 'yaml';
import { describeWithService, dashboardQueries, evaluable, familiesIn, sourcesUnder } from '@paygate/testing';

const run = promisify(execFile);
const ROOT = resolve(__dirname, '../..');

describe("the chart's Grafana dashboards, read as files", () => {
  const queries = dashboardQueries();

  it('have panels for the funnel, callbacks, services and infrastructure, each with a query', () => {
    expect([...new Set(queries.map((query) => query.dashboard))].sort()).toEqual([
      'Paygate / Callbacks',
      'Paygate / Infrastructure',
      'Paygate / Payment funnel',
      'Paygate / Services',
    ]);
    for (const query of queries)
      expect({ ...query, reads: familiesIn(query.expr).length > 0 }).toMatchObject({ reads: true });
  });

  it("read only metrics the apps declare, or prom-client's process metrics they serve", async () => {
    const sources = sourcesUnder(join(ROOT, 'libs'));
    const registry = new Registry();
    collectDefaultMetrics({ register: registry });
    const processMetrics = new Set((await registry.getMetricsAsJSON()).map((metric) => metric.name));
    for (const { panel, expr } of queries)
      for (const family of familiesIn(expr)) {
        const declared = family.startsWith('paygate_') ? sources.includes(`'${family}'`) : processMetrics.has(family);
        expect({ panel, family, declared }).toEqual({ panel, family, declared: true });
      }
  });
});

describeWithService(
  'promtool',
  "the chart's Grafana dashboards, their queries parsed by Prometheus's promtool",
  (promtool) => {
    let dir = '';
    beforeAll(() => (dir = mkdtempSync(join(tmpdir(), 'paygate-dashboard-queries-'))));
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('are valid PromQL (each checked as a recording rule)', async () => {
      const queries = dashboardQueries();
      const file = join(dir, 'queries.yaml');
      writeFileSync(
        file,
        stringify({
          groups: [
            {
              name: 'dashboard-queries',
              rules: queries.map((query, index) => ({
                record: `paygate_dashboard_query_${index}`,
                expr: evaluable(query.expr),
              })),
            },
          ],
        }),
      );
      const result = await run(promtool, ['check', 'rules', file]).then(
        ({ stdout }) => ({ ok: true, output: stdout }),
        (error: { stdout: string; stderr: string }) => ({ ok: false, output: `${error.stdout}${error.stderr}` }),
      );
      expect(result).toEqual({ ok: true, output: expect.stringContaining(`SUCCESS: ${queries.length} rules found`) });
    });
  },
);
