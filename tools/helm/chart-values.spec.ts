import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describeWithService } from '@paygate/testing';
import { configSchemaProperties } from './chart-variables';
import { suiteFolder } from './chart-test-setup';
import { CHART_DIR, renderChart } from './helm';

const SCHEMA_FILE = resolve(CHART_DIR, 'values.schema.json');
const SCHEMA_FAILURE = "values don't meet the specifications of the schema(s)";

describe("the chart's values schema", () => {
  it('accepts in `config` exactly the non-secret settings of libs/config the chart does not set itself (UPDATE_CHART_SCHEMA=1 npm test -- tools/helm rewrites it)', () => {
    const text = readFileSync(SCHEMA_FILE, 'utf8');
    const schema = JSON.parse(text);
    const expected = configSchemaProperties();
    if (
      JSON.stringify(schema.properties.config.properties) !== JSON.stringify(expected) &&
      process.env.UPDATE_CHART_SCHEMA === '1'
    ) {
      schema.properties.config.properties = expected;
      writeFileSync(SCHEMA_FILE, `${JSON.stringify(schema, null, 2)}\n`);
      return;
    }
    expect(schema.properties.config.properties).toEqual(expected);
    expect(schema.properties.config.additionalProperties).toBe(false);
  });
});

/** Values a user might get wrong, and the line Helm answers each with. */
const REJECTED: [what: string, values: string, message: string][] = [
  [
    'a misspelt key',
    'apps:\n  collections:\n    replica: 3\n',
    "at '/apps/collections': additional properties 'replica' not allowed",
  ],
  [
    'zero replicas',
    'apps:\n  apiGateway:\n    replicas: 0\n',
    "at '/apps/apiGateway/replicas': minimum: got 0, want 1",
  ],
  [
    'a secret in config',
    'config:\n  MASTER_KEY: "00"\n',
    "at '/config': additional properties 'MASTER_KEY' not allowed",
  ],
  [
    'a secret value inline',
    'secrets:\n  STORE_URL: postgres://paygate:hunter2@db/paygate\n',
    "at '/secrets': additional properties 'STORE_URL' not allowed",
  ],
  ['no Secret name', 'secrets:\n  existingSecret: ""\n', "at '/secrets/existingSecret': '' does not match pattern"],
  [
    'a number where config wants text',
    'config:\n  CALLBACK_CONCURRENCY_PER_HOST: 8\n',
    "at '/config/CALLBACK_CONCURRENCY_PER_HOST': got number, want string",
  ],
  [
    'a memory request without a unit Kubernetes knows',
    'apps:\n  webhookDispatcher:\n    resources:\n      requests:\n        memory: lots\n',
    "at '/apps/webhookDispatcher/resources/requests/memory': 'lots' does not match pattern",
  ],
  [
    'an unknown pull policy',
    'image:\n  pullPolicy: Sometimes\n',
    "at '/image/pullPolicy': value must be one of 'Always', 'IfNotPresent', 'Never'",
  ],
  ['a privileged port', 'containerPort: 80\n', "at '/containerPort': minimum: got 80, want 1,024"],
  ['root as the user', 'securityContext:\n  runAsUser: 0\n', "at '/securityContext/runAsUser': minimum: got 0, want 1"],
  [
    'no sandbox and no provider URLs',
    'apps:\n  sandbox:\n    enabled: false\n',
    "at '/providers/momoApiUrl': minLength: got 0, want 1",
  ],
];

describeWithService('helm', 'the chart rendered with bad values (real Helm engine)', () => {
  const { valuesFile } = suiteFolder('paygate-chart-values-');

  it.each(REJECTED)('refuses %s with the schema message', async (what, yaml, message) => {
    const run = await renderChart([valuesFile(what, yaml)]);
    expect(run.ok).toBe(false);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(SCHEMA_FAILURE);
    expect(run.stderr).toContain(message);
    expect(run.stderr).not.toContain('hunter2');
  });

  it('refuses autoscaling whose minimum is above its maximum, naming the app', async () => {
    const yaml =
      'apps:\n  collections:\n    autoscaling:\n      enabled: true\n      minReplicas: 5\n      maxReplicas: 3\n';
    const run = await renderChart([valuesFile('autoscaling', yaml)]);
    expect(run.ok).toBe(false);
    expect(run.stderr).toContain('apps.collections.autoscaling: minReplicas (5) must not be above maxReplicas (3)');
  });

  it('renders once the missing provider URLs are given', async () => {
    const yaml =
      'apps:\n  sandbox:\n    enabled: false\nproviders:\n  momoApiUrl: https://momo.example\n  cardApiUrl: https://card.example\n  billerApiUrl: https://biller.example\n';
    const run = await renderChart([valuesFile('providers', yaml)]);
    expect(run.stderr).not.toContain('Error');
    expect(run.ok).toBe(true);
    expect(run.stdout).toContain('MOMO_API_URL: https://momo.example');
  });
});
