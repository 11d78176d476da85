import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describeWithService } from '@paygate/testing';
import { chartShowingHooks, render, suiteFolder } from './chart-test-setup';
import { renderChart } from './helm';
import { containerOf, ofKind, schemaProblems, type DeploymentManifest } from './manifests';

const TLS_VALUES = `trustedCa:
  secretName: paygate-ca
  mountPath: /etc/paygate/ca
config:
  KAFKA_TLS_CA_FILE: /etc/paygate/ca/ca.crt
  KAFKA_SASL_MECHANISM: scram-sha-512
  KAFKA_SASL_USERNAME: paygate
migrations:
  job:
    enabled: true
`;

describeWithService('helm', 'the chart with TLS and SASL to Kafka and PostgreSQL (real Helm engine)', () => {
  const folder = suiteFolder('paygate-chart-tls-');
  let values: string;
  beforeAll(() => (values = folder.valuesFile('tls', TLS_VALUES)));

  it('mounts no CA Secret by default', async () => {
    for (const deployment of ofKind<DeploymentManifest>(await render([]), 'Deployment')) {
      expect(deployment.spec.template.spec?.volumes?.map((volume) => volume.name)).toEqual(['tmp', 'commands-tls']);
    }
  });

  it('mounts the CA Secret read-only in every app and the migrations Job, takes the Kafka settings through config and the password from the Secret', async () => {
    const manifests = await render([values], chartShowingHooks(folder.dir));
    const deployments = ofKind<DeploymentManifest>(manifests, 'Deployment');
    expect(deployments.length).toBeGreaterThan(0);
    const pods = [
      ...deployments.map((deployment) => deployment.spec.template.spec!),
      ...ofKind<IJob>(manifests, 'Job').map((job) => job.spec!.template.spec!),
    ];
    expect(pods).toHaveLength(deployments.length + 1);
    for (const pod of pods) {
      expect(pod.volumes).toContainEqual({ name: 'trusted-ca', secret: { secretName: 'paygate-ca' } });
      expect(pod.containers[0].volumeMounts).toContainEqual({
        name: 'trusted-ca',
        mountPath: '/etc/paygate/ca',
        readOnly: true,
      });
    }
    for (const deployment of deployments) {
      expect(schemaProblems(deployment)).toEqual([]);
      expect(containerOf(deployment).env).toContainEqual({
        name: 'KAFKA_SASL_PASSWORD',
        valueFrom: { secretKeyRef: { name: 'paygate-secrets', key: 'KAFKA_SASL_PASSWORD', optional: true } },
      });
    }
    for (const configMap of ofKind<IConfigMap>(manifests, 'ConfigMap')) {
      expect(configMap.data).toMatchObject({
        KAFKA_TLS_CA_FILE: '/etc/paygate/ca/ca.crt',
        KAFKA_SASL_MECHANISM: 'scram-sha-512',
        KAFKA_SASL_USERNAME: 'paygate',
      });
      expect(configMap.data).not.toHaveProperty('KAFKA_SASL_PASSWORD');
    }
  });

  it('refuses the Kafka password in config', async () => {
    const run = await renderChart([
      folder.valuesFile('password-in-config', 'config:\n  KAFKA_SASL_PASSWORD: hunter2\n'),
    ]);
    expect(run.ok).toBe(false);
    expect(run.stderr).toContain("at '/config': additional properties 'KAFKA_SASL_PASSWORD' not allowed");
    expect(run.stderr).not.toContain('hunter2');
  });
});
