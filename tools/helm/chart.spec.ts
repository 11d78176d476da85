import type { IHorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import type { IService } from 'kubernetes-models/v1/Service';
import { describeWithService } from '@paygate/testing';
import { SECRET_VARIABLES } from './chart-variables';
import { manifestsOf } from './chart-test-setup';
import { lintChart, PRODUCTION_VALUES, renderChart } from './helm';
import {
  appConfigMaps,
  containerOf,
  ofKind,
  schemaProblems,
  type DeploymentManifest,
  type Manifest,
} from './manifests';

const CORE_APPS = ['api-gateway', 'collections', 'service-payments', 'webhook-dispatcher'];
/** The apps the gateway sends commands to, and the variable that tells it where. */
const COMMAND_SERVERS: Record<string, string> = {
  collections: 'COLLECTIONS_COMMANDS_URL',
  'service-payments': 'PAYMENTS_COMMANDS_URL',
  'webhook-dispatcher': 'WEBHOOKS_COMMANDS_URL',
};

/** One render per values list, shared by the tests that read it. */
const renders = new Map<string, Promise<Manifest[]>>();
function rendered(files: string[] = []): Promise<Manifest[]> {
  const key = files.join('\n');
  if (!renders.has(key)) renders.set(key, renderChart(files).then(manifestsOf));
  return renders.get(key)!;
}

const appOf = (manifest: Manifest) => manifest.metadata.labels?.['app.kubernetes.io/component'];
const deploymentsOf = (manifests: Manifest[]) => ofKind<DeploymentManifest>(manifests, 'Deployment');
const byApp = <T extends Manifest>(objects: T[]) => new Map(objects.map((object) => [appOf(object), object]));
const isHeadless = (service: IService) => service.spec?.clusterIP === 'None';

describeWithService('helm', 'the Helm chart k8s/paygate (real Helm engine)', () => {
  it('passes helm lint --strict', async () => {
    const run = await lintChart();
    expect(run.stderr).not.toContain('Error');
    expect(run.stdout).toContain('lint: passed');
    expect(run.stdout).not.toMatch(/\[(ERROR|WARNING)\]/);
    expect(run.ok).toBe(true);
  });

  describe.each([
    {
      values: 'default values',
      files: [],
      apps: [...CORE_APPS, 'sandbox'],
      secret: 'paygate-secrets',
      openToAnyone: ['api-gateway', 'collections', 'sandbox'],
    },
    {
      values: 'k8s/values-production.yaml',
      files: [PRODUCTION_VALUES],
      apps: CORE_APPS,
      secret: 'paygate-production',
      openToAnyone: [],
    },
  ])('rendered with $values', ({ files, apps, secret, openToAnyone }) => {
    let manifests: Manifest[];
    beforeAll(async () => {
      manifests = await rendered(files);
    });

    it('renders only objects that are valid against their Kubernetes schemas', () => {
      expect(manifests.length).toBeGreaterThan(0);
      expect(manifests.flatMap(schemaProblems)).toEqual([]);
    });

    it("runs one Deployment per app and one Service selecting exactly that Deployment's pods", () => {
      const deployments = byApp(deploymentsOf(manifests));
      const services = byApp(ofKind<IService>(manifests, 'Service').filter((service) => !isHeadless(service)));
      expect([...deployments.keys()].sort()).toEqual([...apps].sort());
      expect([...services.keys()].sort()).toEqual([...apps].sort());
      for (const [app, deployment] of deployments) {
        const service = services.get(app)!;
        expect(service.spec?.selector).toEqual(deployment.spec.selector.matchLabels);
        expect(deployment.spec.template.metadata?.labels).toMatchObject(deployment.spec.selector.matchLabels ?? {});
        expect(containerOf(deployment).command).toEqual(['node', `dist/apps/${app}/main.js`]);
        expect(service.spec?.ports).toEqual([expect.objectContaining({ name: 'http', targetPort: 'http' })]);
      }
    });

    it('probes every app: startup and liveness on /health/live, readiness on /health/ready, all on its http port', () => {
      for (const deployment of deploymentsOf(manifests)) {
        const container = containerOf(deployment);
        const commands = COMMAND_SERVERS[appOf(deployment) ?? '']
          ? [expect.objectContaining({ name: 'commands', containerPort: 7000 })]
          : [];
        expect(container.ports).toEqual([expect.objectContaining({ name: 'http' }), ...commands]);
        expect(container.startupProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' });
        expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'http' });
        expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'http' });
      }
    });

    it('gives every app cpu and memory requests and a memory limit', () => {
      for (const deployment of deploymentsOf(manifests)) {
        const { resources } = containerOf(deployment);
        expect(resources?.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
        expect(resources?.limits?.memory).toBeDefined();
      }
    });

    it('runs every app as non-root on a read-only root filesystem, without privilege escalation or capabilities', () => {
      for (const deployment of deploymentsOf(manifests)) {
        const pod = deployment.spec.template.spec!;
        const { securityContext, volumeMounts } = containerOf(deployment);
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: expect.any(Number) });
        expect(pod.securityContext?.runAsUser).toBeGreaterThan(0);
        expect(pod.automountServiceAccountToken).toBe(false);
        expect(securityContext).toMatchObject({
          runAsNonRoot: true,
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          privileged: false,
        });
        expect(securityContext?.capabilities?.drop).toEqual(['ALL']);
        expect(volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' });
      }
    });

    it('reads every secret from the existing Secret by reference: no Secret object, no secret in a ConfigMap or an inline value', () => {
      expect(ofKind(manifests, 'Secret')).toEqual([]);
      for (const configMap of ofKind<IConfigMap>(manifests, 'ConfigMap')) {
        expect(Object.keys(configMap.data ?? {}).filter((variable) => SECRET_VARIABLES.includes(variable))).toEqual([]);
      }
      const referenced = new Set<string>();
      for (const deployment of deploymentsOf(manifests)) {
        const container = containerOf(deployment);
        expect(container.envFrom).toEqual([{ configMapRef: { name: deployment.metadata.name } }]);
        for (const variable of container.env ?? []) {
          expect(variable).not.toHaveProperty('value');
          expect(variable.valueFrom?.secretKeyRef).toMatchObject({ name: secret, key: variable.name });
          referenced.add(variable.name);
        }
      }
      // Every secret libs/config declares reaches some app (a new one fails here until the chart passes it on).
      expect([...referenced].sort()).toEqual([...SECRET_VARIABLES].sort());
    });

    it("gives each app's pods their own ConfigMap, and rolls them when it changes", () => {
      const configMaps = byApp(appConfigMaps<IConfigMap>(manifests));
      for (const deployment of deploymentsOf(manifests)) {
        expect(configMaps.get(appOf(deployment))?.metadata.name).toBe(deployment.metadata.name);
        expect(deployment.spec.template.metadata?.annotations?.['checksum/config']).toMatch(/^[0-9a-f]{64}$/);
      }
    });

    it('protects every app but the single-replica sandbox with a PodDisruptionBudget selecting its pods', () => {
      const budgets = byApp(ofKind<IPodDisruptionBudget>(manifests, 'PodDisruptionBudget'));
      expect([...budgets.keys()].sort()).toEqual([...CORE_APPS].sort());
      const deployments = byApp(deploymentsOf(manifests));
      for (const [app, budget] of budgets) {
        expect(budget.spec?.selector?.matchLabels).toEqual(deployments.get(app)?.spec.selector.matchLabels);
        expect(budget.spec?.maxUnavailable).toBe(1);
      }
    });

    it('puts a NetworkPolicy on every app, open to outside traffic only for the apps that take it', () => {
      const policies = byApp(ofKind<INetworkPolicy>(manifests, 'NetworkPolicy'));
      expect([...policies.keys()].sort()).toEqual([...apps].sort());
      const fromAnyone = [...policies]
        .filter(([, policy]) => policy.spec?.ingress?.some((rule) => rule.from === undefined))
        .map(([app]) => app);
      expect(fromAnyone.sort()).toEqual([...openToAnyone].sort());
      for (const [app, policy] of policies) {
        const ports = COMMAND_SERVERS[app ?? ''] ? ['http', 'commands'] : ['http'];
        expect(
          policy.spec?.ingress?.every((rule) => rule.ports?.every((port) => ports.includes(String(port.port)))),
        ).toBe(true);
      }
    });

    it('gives each app that serves commands a headless Service on its pods, whose name every app is told (commands go round-robin over its pods)', () => {
      const headless = byApp(ofKind<IService>(manifests, 'Service').filter(isHeadless));
      const deployments = byApp(deploymentsOf(manifests));
      expect([...headless.keys()].sort()).toEqual(Object.keys(COMMAND_SERVERS).sort());
      const configs = byApp(appConfigMaps<IConfigMap>(manifests));
      for (const [app, service] of headless) {
        expect(service.spec?.selector).toEqual(deployments.get(app)?.spec.selector.matchLabels);
        expect(service.spec?.ports).toEqual([
          expect.objectContaining({ name: 'commands', port: 7000, targetPort: 'commands' }),
        ]);
        expect(configs.get(app)?.data).toMatchObject({ COMMANDS_LISTEN_URL: 'tcp://0.0.0.0:7000' });
        for (const config of configs.values())
          expect(config.data?.[COMMAND_SERVERS[app ?? '']]).toBe(`tcp://${service.metadata?.name}:7000`);
      }
      expect(configs.get('api-gateway')?.data?.COMMANDS_LISTEN_URL).toBeUndefined();
    });

    it('spreads every app across zones and nodes', () => {
      for (const deployment of deploymentsOf(manifests)) {
        const constraints = deployment.spec.template.spec?.topologySpreadConstraints ?? [];
        expect(constraints.length).toBeGreaterThan(0);
        for (const constraint of constraints)
          expect(constraint.labelSelector?.matchLabels).toEqual(deployment.spec.selector.matchLabels);
      }
    });
  });

  describe('with default values', () => {
    let manifests: Manifest[];
    beforeAll(async () => {
      manifests = await rendered();
    });

    it('points collections and service-payments at the sandbox Service, and runs fixed replica counts without autoscalers', () => {
      const data = (app: string) => byApp(appConfigMaps<IConfigMap>(manifests)).get(app)?.data;
      expect(data('collections')).toMatchObject({
        MOMO_API_URL: 'http://paygate-sandbox/sandbox/momo',
        CARD_API_URL: 'http://paygate-sandbox/sandbox/card',
      });
      expect(data('service-payments')).toMatchObject({ BILLER_API_URL: 'http://paygate-sandbox/sandbox/biller' });
      expect(ofKind(manifests, 'HorizontalPodAutoscaler')).toEqual([]);
      expect(ofKind(manifests, 'ServiceMonitor')).toEqual([]);
      expect(byApp(deploymentsOf(manifests)).get('api-gateway')?.spec.replicas).toBe(2);
    });
  });

  describe('with k8s/values-production.yaml', () => {
    let manifests: Manifest[];
    beforeAll(async () => {
      manifests = await rendered([PRODUCTION_VALUES]);
    });

    it('leaves replica counts to an autoscaler for each autoscaled app', () => {
      const autoscalers = byApp(ofKind<IHorizontalPodAutoscaler>(manifests, 'HorizontalPodAutoscaler'));
      expect([...autoscalers.keys()].sort()).toEqual(['api-gateway', 'collections', 'webhook-dispatcher']);
      for (const deployment of deploymentsOf(manifests)) {
        const autoscaler = autoscalers.get(appOf(deployment));
        if (autoscaler) {
          expect(deployment.spec.replicas).toBeUndefined();
          expect(autoscaler.spec?.scaleTargetRef).toEqual({
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            name: deployment.metadata.name,
          });
        } else {
          expect(deployment.spec.replicas).toBe(2);
        }
      }
    });

    it('sends collections to the providers and public URLs the values name', () => {
      const data = byApp(appConfigMaps<IConfigMap>(manifests)).get('collections')?.data;
      expect(data).toMatchObject({
        MOMO_API_URL: 'https://momo.provider.example',
        CARD_API_URL: 'https://card.provider.example',
        PROVIDER_CALLBACK_URL: 'https://callbacks.paygate.example',
        CHECKOUT_RETURN_URL: 'https://api.paygate.example',
      });
    });

    it('restricts egress and lets Prometheus scrape every app through one ServiceMonitor', () => {
      for (const policy of ofKind<INetworkPolicy>(manifests, 'NetworkPolicy'))
        expect(policy.spec?.policyTypes).toEqual(['Ingress', 'Egress']);
      const monitors = ofKind(manifests, 'ServiceMonitor');
      expect(monitors).toHaveLength(1);
      expect(monitors[0]).toMatchObject({ spec: { endpoints: [{ port: 'http', path: '/metrics' }] } });
    });
  });
});
