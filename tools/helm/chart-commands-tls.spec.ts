import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describeWithService } from '@paygate/testing';
import { renderChart } from './helm';
import { render, suiteFolder } from './chart-test-setup';
import { appConfigMaps, ofKind, schemaProblems, type DeploymentManifest, type Manifest } from './manifests';

describeWithService('helm', 'the chart: mutual TLS on the commands between apps (real Helm engine)', () => {
  const { valuesFile } = suiteFolder('paygate-chart-commands-tls-');

  it("mounts each app's own commands Secret read-only and points COMMANDS_TLS_DIR at it; renders no Certificate by default", async () => {
    const manifests = await render();
    const deployments = ofKind<DeploymentManifest>(manifests, 'Deployment');
    expect(deployments.map((deployment) => deployment.metadata.name).sort()).toEqual(
      ['api-gateway', 'collections', 'sandbox', 'service-payments', 'webhook-dispatcher'].map(
        (app) => `paygate-${app}`,
      ),
    );
    for (const deployment of deployments) {
      const pod = deployment.spec.template.spec!;
      const app = deployment.metadata.name.replace(/^paygate-/, '');
      // One app's Secret only: a pod that is broken into holds no other app's key.
      expect(pod.volumes?.filter((volume) => volume.secret?.secretName?.startsWith('paygate-commands-tls'))).toEqual([
        { name: 'commands-tls', secret: { secretName: `paygate-commands-tls-${app}`, defaultMode: 0o440 } },
      ]);
      expect(pod.containers[0].volumeMounts).toContainEqual({
        name: 'commands-tls',
        mountPath: '/etc/paygate/commands-tls',
        readOnly: true,
      });
    }
    for (const configMap of appConfigMaps<IConfigMap>(manifests))
      expect(configMap.data).toMatchObject({ COMMANDS_TLS_DIR: '/etc/paygate/commands-tls' });
    expect(ofKind(manifests, 'Certificate')).toEqual([]);
  });

  it("asks a cert-manager issuer for each app's certificate: named by its app, a serving app's also by its command Service", async () => {
    const manifests = await render([
      valuesFile('cert-manager', 'commandsTls:\n  certManager:\n    issuerName: paygate-commands-ca\n'),
    ]);
    const certificates = ofKind<Manifest & { spec: Record<string, unknown> }>(manifests, 'Certificate');
    expect(certificates.map((certificate) => schemaProblems(certificate)).flat()).toEqual([]);
    const byApp = Object.fromEntries(
      certificates.map((certificate) => [
        certificate.metadata.name.replace(/^paygate-(.*)-commands$/, '$1'),
        certificate.spec,
      ]),
    );
    expect(Object.keys(byApp).sort()).toEqual([
      'api-gateway',
      'collections',
      'sandbox',
      'service-payments',
      'webhook-dispatcher',
    ]);
    for (const [app, spec] of Object.entries(byApp))
      expect(spec).toMatchObject({
        secretName: `paygate-commands-tls-${app}`,
        uris: [`spiffe://paygate/${app}`],
        usages: ['digital signature', 'server auth', 'client auth'],
        issuerRef: { group: 'cert-manager.io', kind: 'Issuer', name: 'paygate-commands-ca' },
      });
    expect(byApp['service-payments'].dnsNames).toEqual([
      'paygate-service-payments-commands',
      'paygate-service-payments-commands.paygate.svc',
    ]);
    expect(byApp['api-gateway'].dnsNames).toBeUndefined();
  });

  it("README's Kubernetes block creates exactly the Secrets the chart mounts, from scripts/certs.sh --apps", async () => {
    const readme = readFileSync(join(__dirname, '..', '..', 'README.md'), 'utf8');
    const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('### Kubernetes')))?.[1] ?? '';
    const apps = /for app in ([a-z -]+); do/.exec(block)?.[1].trim().split(' ') ?? [];
    const prefix = /create secret generic (\S+)\$app /.exec(block)?.[1];
    expect(block).toContain('bash scripts/certs.sh --apps commands-tls');
    const mounted = ofKind<DeploymentManifest>(await render(), 'Deployment').map(
      (deployment) =>
        deployment.spec.template.spec!.volumes!.find((volume) => volume.name === 'commands-tls')!.secret!.secretName,
    );
    expect(apps.map((app) => `${prefix}${app}`).sort()).toEqual(mounted.sort());
  });

  it('refuses an empty Secret prefix: there is no command port without credentials', async () => {
    const run = await renderChart([valuesFile('no-secret', 'commandsTls:\n  secretPrefix: ""\n')]);
    expect(run.ok).toBe(false);
    expect(run.stderr).toContain("at '/commandsTls/secretPrefix'");
  });

  it('refuses the one shared Secret of earlier releases by name, so an upgrade does not start apps without their own', async () => {
    const run = await renderChart([valuesFile('shared-secret', 'commandsTls:\n  secretName: paygate-commands-tls\n')]);
    expect(run.ok).toBe(false);
    expect(run.stderr).toContain('secretName');
  });
});
