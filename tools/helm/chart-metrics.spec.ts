import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { describeWithService } from '@paygate/testing';
import { render, suiteFolder } from './chart-test-setup';
import { ofKind, schemaProblems, type Manifest } from './manifests';

describeWithService('helm', 'the chart: GET /metrics behind METRICS_TOKEN (real Helm engine)', () => {
  const { valuesFile } = suiteFolder('paygate-chart-metrics-');

  it("gives every app the Secret's METRICS_TOKEN when it has one, without requiring it", async () => {
    for (const deployment of ofKind<IDeployment>(await render(), 'Deployment'))
      expect(deployment.spec?.template.spec?.containers[0].env).toContainEqual({
        name: 'METRICS_TOKEN',
        valueFrom: { secretKeyRef: { name: 'paygate-secrets', key: 'METRICS_TOKEN', optional: true } },
      });
  });

  it('scrapes with that token as a bearer token when serviceMonitor.bearerToken is set', async () => {
    const manifests = await render([
      valuesFile('scrape-token', 'serviceMonitor:\n  enabled: true\n  bearerToken: true\n'),
    ]);
    const [monitor] = ofKind<Manifest & { spec: { endpoints: Record<string, unknown>[] } }>(
      manifests,
      'ServiceMonitor',
    );
    expect(schemaProblems(monitor)).toEqual([]);
    expect(monitor.spec.endpoints[0]).toMatchObject({
      path: '/metrics',
      authorization: { type: 'Bearer', credentials: { name: 'paygate-secrets', key: 'METRICS_TOKEN' } },
    });
    const plain = await render([valuesFile('scrape-open', 'serviceMonitor:\n  enabled: true\n')]);
    expect(
      ofKind<Manifest & { spec: { endpoints: Record<string, unknown>[] } }>(plain, 'ServiceMonitor')[0].spec
        .endpoints[0],
    ).not.toHaveProperty('authorization');
  });
});
