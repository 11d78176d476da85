import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describeWithService } from '@paygate/testing';
import { renderChart } from './helm';
import { render, suiteFolder } from './chart-test-setup';
import { ofKind, schemaProblems, type DeploymentManifest, type Manifest } from './manifests';

describeWithService('helm', 'the chart: mutual TLS on the commands between apps (real Helm engine)', () => {
  const { valuesFile } = suiteFolder('paygate-chart-commands-tls-');

  it('mounts the commands Secret read-only in every app and points COMMANDS_TLS_DIR at it; renders no Certificate by default', async () => {
    const manifests = await render();
    const deployments = ofKind<DeploymentManifest>(manifests, 'Deployment');
    expect(deployments.map((deployment) => deployment.metadata.name).sort()).toEqual(
      ['api-gateway', 'collections', 'sandbox', 'service-payments', 'webhook-dispatcher'].map(
        (app) => `paygate-${app}`,
      ),
    );
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec!;
      expect(pod.volumes).toContainEqual({
        name: 'commands-tls',
        secret: { secretName: 'paygate-commands-tls', defaultMode: 0o440 },
      });
      expect(pod.containers[0].volumeMounts).toContainEqual({
        name: 'commands-tls',
        mountPath: '/etc/paygate/commands-tls',
        readOnly: true,
      });
    }
    for (const configMap of ofKind<IConfigMap>(manifests, 'ConfigMap'))
      expect(configMap.data).toMatchObject({ COMMANDS_TLS_DIR: '/etc/paygate/commands-tls' });
    expect(ofKind(manifests, 'Certificate')).toEqual([]);
  });

  it('asks a cert-manager issuer for the certificate: every command Service named, usable to serve and to send', async () => {
    const manifests = await render([
      valuesFile('cert-manager', 'commandsTls:\n  certManager:\n    issuerName: paygate-commands-ca\n'),
    ]);
    const [certificate] = ofKind<Manifest & { spec: Record<string, unknown> }>(manifests, 'Certificate');
    expect(schemaProblems(certificate)).toEqual([]);
    expect(certificate.spec).toMatchObject({
      secretName: 'paygate-commands-tls',
      usages: ['digital signature', 'server auth', 'client auth'],
      issuerRef: { group: 'cert-manager.io', kind: 'Issuer', name: 'paygate-commands-ca' },
    });
    expect(certificate.spec.dnsNames).toEqual(
      expect.arrayContaining([
        'paygate-collections-commands',
        'paygate-service-payments-commands',
        'paygate-webhook-dispatcher-commands',
      ]),
    );
  });

  it('refuses an empty Secret name: there is no command port without credentials', async () => {
    const run = await renderChart([valuesFile('no-secret', 'commandsTls:\n  secretName: ""\n')]);
    expect(run.ok).toBe(false);
    expect(run.stderr).toContain("at '/commandsTls/secretName'");
  });
});
