import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { parse } from 'yaml';
import { describeWithService } from '@paygate/testing';
import { render, suiteFolder } from './chart-test-setup';
import { renderChart, PRODUCTION_VALUES } from './helm';
import { ofKind, schemaProblems, type Manifest } from './manifests';

interface RulesFile {
  groups: { name: string; rules: { alert: string; annotations: { runbook_url: string } }[] }[];
}

const RULES_FILE = resolve(__dirname, '../../k8s/paygate/files/paygate-alerts.yaml');
const shipped = () => parse(readFileSync(RULES_FILE, 'utf8')) as RulesFile;
const runbooks = (rules: RulesFile) =>
  rules.groups.flatMap((group) => group.rules.map((rule) => rule.annotations.runbook_url));
const isAlerts = (manifest: Manifest) => manifest.metadata.name === 'paygate-alerts';

describeWithService('helm', "the chart: Paygate's alert rules (real Helm engine)", () => {
  const { valuesFile } = suiteFolder('paygate-chart-alerts-');

  it('renders no rules unless asked', async () => {
    expect((await render()).filter(isAlerts)).toEqual([]);
  });

  it("renders a PrometheusRule holding the rules file's groups, each runbook link on the given base", async () => {
    const manifests = await render([
      valuesFile(
        'rule',
        'alerts:\n  enabled: true\n  kind: PrometheusRule\n  labels: { release: prometheus }\n  runbookBaseUrl: https://git.example.com/paygate/blob/v1/\n',
      ),
    ]);
    const [rule] = ofKind<Manifest & { spec: RulesFile }>(manifests, 'PrometheusRule');
    expect(schemaProblems(rule)).toEqual([]);
    expect(rule.metadata).toMatchObject({ name: 'paygate-alerts', labels: { release: 'prometheus' } });
    const file = shipped();
    expect(rule.spec.groups.map((group) => group.rules.map((r) => r.alert))).toEqual(
      file.groups.map((group) => group.rules.map((r) => r.alert)),
    );
    expect(runbooks(rule.spec)).toEqual(runbooks(file).map((url) => `https://git.example.com/paygate/blob/v1/${url}`));
    // The rest of each rule is the file's own, templates for Prometheus included.
    const withoutRunbooks = (rules: RulesFile) =>
      JSON.parse(JSON.stringify(rules).replaceAll('https://git.example.com/paygate/blob/v1/', '')) as unknown;
    expect(withoutRunbooks(rule.spec)).toEqual(withoutRunbooks(file));
  });

  it('without the Operator, renders the rules file in a ConfigMap for a Prometheus that loads rule files', async () => {
    const manifests = await render([valuesFile('auto', 'alerts:\n  enabled: true\n')]);
    expect(ofKind(manifests, 'PrometheusRule')).toEqual([]);
    const [configMap] = manifests.filter(isAlerts) as (Manifest & IConfigMap)[];
    expect(configMap.kind).toBe('ConfigMap');
    expect(schemaProblems(configMap)).toEqual([]);
    expect(parse(configMap.data?.['paygate-alerts.yaml'] ?? '')).toEqual(shipped());
  });

  it('renders them as a PrometheusRule with k8s/values-production.yaml', async () => {
    const manifests = await render([PRODUCTION_VALUES]);
    expect(ofKind(manifests, 'PrometheusRule').map((manifest) => manifest.metadata.name)).toEqual(['paygate-alerts']);
  });

  it('refuses a kind it does not render, and a runbook base that does not end in a slash', async () => {
    for (const yaml of [
      'alerts:\n  enabled: true\n  kind: Rule\n',
      'alerts:\n  enabled: true\n  runbookBaseUrl: https://git.example.com/docs\n',
    ]) {
      const run = await renderChart([valuesFile(yaml, yaml)]);
      expect(run.ok).toBe(false);
      expect(run.stderr).toMatch(/alerts/);
    }
  });
});
