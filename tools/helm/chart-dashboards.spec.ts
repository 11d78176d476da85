import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describeWithService } from '@paygate/testing';
import { render, suiteFolder } from './chart-test-setup';
import { PRODUCTION_VALUES } from './helm';
import { ofKind, schemaProblems, type Manifest } from './manifests';

const DASHBOARDS = resolve(__dirname, '../../k8s/paygate/files/dashboards');
const files = () => readdirSync(DASHBOARDS).filter((file) => file.endsWith('.json'));
const dashboardMaps = (manifests: Manifest[]) =>
  ofKind<Manifest & IConfigMap>(manifests, 'ConfigMap').filter((map) => map.metadata.name.includes('-dashboard-'));

describeWithService('helm', "the chart: Paygate's Grafana dashboards (real Helm engine)", () => {
  const { valuesFile } = suiteFolder('paygate-chart-dashboards-');

  it('renders none unless asked', async () => {
    expect(dashboardMaps(await render())).toEqual([]);
  });

  it("renders one ConfigMap per dashboard, labelled for Grafana's sidecar, holding the JSON as written", async () => {
    const maps = dashboardMaps(await render([valuesFile('on', 'dashboards:\n  enabled: true\n')]));
    expect(maps.map((map) => map.metadata.name).sort()).toEqual([
      'paygate-dashboard-callbacks',
      'paygate-dashboard-funnel',
      'paygate-dashboard-infrastructure',
      'paygate-dashboard-services',
    ]);
    for (const map of maps) {
      expect(schemaProblems(map)).toEqual([]);
      expect(map.metadata.labels).toMatchObject({ grafana_dashboard: '1' });
      expect(map.metadata).not.toHaveProperty('annotations');
    }
    for (const file of files()) {
      const [map] = maps.filter((candidate) => candidate.data?.[file] !== undefined);
      expect(JSON.parse(map.data?.[file] ?? '')).toEqual(JSON.parse(readFileSync(join(DASHBOARDS, file), 'utf8')));
    }
  });

  it("puts them in a folder through the sidecar's annotation, under the labels asked for", async () => {
    const maps = dashboardMaps(
      await render([
        valuesFile(
          'folder',
          'dashboards:\n  enabled: true\n  labels: { dashboards: paygate }\n  folder: Payments\n  folderAnnotation: k8s-sidecar-target-directory\n',
        ),
      ]),
    );
    expect(maps).toHaveLength(4);
    for (const map of maps)
      expect(map.metadata).toMatchObject({
        labels: { dashboards: 'paygate' },
        annotations: { 'k8s-sidecar-target-directory': 'Payments' },
      });
  });

  it('renders them with k8s/values-production.yaml, in the Paygate folder', async () => {
    const maps = dashboardMaps(await render([PRODUCTION_VALUES]));
    expect(maps).toHaveLength(4);
    for (const map of maps) expect(map.metadata).toMatchObject({ annotations: { grafana_folder: 'Paygate' } });
  });
});
