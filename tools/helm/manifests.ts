import { Certificate } from '@kubernetes-models/cert-manager/cert-manager.io/v1/Certificate';
import {
  PrometheusRule,
  type IPrometheusRule,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import {
  ServiceMonitor,
  type IServiceMonitor,
} from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment, type IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { Job } from 'kubernetes-models/batch/v1/Job';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Secret } from 'kubernetes-models/v1/Secret';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { parseAllDocuments } from 'yaml';

/** One rendered object, as Helm printed it. */
export interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** Every object of a multi-document YAML stream (empty documents, as Helm leaves, dropped). */
export function parseManifests(yaml: string): Manifest[] {
  return parseAllDocuments(yaml)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`rendered YAML does not parse: ${document.errors[0].message}`);
      return document.toJS() as Manifest | null;
    })
    .filter((manifest): manifest is Manifest => manifest !== null);
}

/**
 * The Kubernetes (and Prometheus Operator) schema of every kind the chart may render. A kind
 * missing here is reported, so a new template cannot skip validation.
 */
const SCHEMAS: Record<string, (data: object) => { validate(): void }> = {
  'apps/v1 Deployment': (data) => new Deployment(data),
  'v1 Service': (data) => new Service(data),
  'v1 ConfigMap': (data) => new ConfigMap(data),
  'v1 Secret': (data) => new Secret(data),
  'v1 ServiceAccount': (data) => new ServiceAccount(data),
  'policy/v1 PodDisruptionBudget': (data) => new PodDisruptionBudget(data),
  'autoscaling/v2 HorizontalPodAutoscaler': (data) => new HorizontalPodAutoscaler(data),
  'batch/v1 Job': (data) => new Job(data),
  'networking.k8s.io/v1 NetworkPolicy': (data) => new NetworkPolicy(data),
  'cert-manager.io/v1 Certificate': (data) => new Certificate(data as ConstructorParameters<typeof Certificate>[0]),
  'monitoring.coreos.com/v1 ServiceMonitor': (data) => new ServiceMonitor(data as Pick<IServiceMonitor, 'spec'>),
  'monitoring.coreos.com/v1 PrometheusRule': (data) => new PrometheusRule(data as Pick<IPrometheusRule, 'spec'>),
};

/** What the schema of `manifest`'s kind finds wrong with it; empty when it is valid. */
export function schemaProblems(manifest: Manifest): string[] {
  const name = `${manifest.kind} ${manifest.metadata?.name}`;
  const model = SCHEMAS[`${manifest.apiVersion} ${manifest.kind}`];
  if (!model) return [`${name}: no schema known for ${manifest.apiVersion} ${manifest.kind}`];
  try {
    model(manifest).validate();
    return [];
  } catch (error) {
    return [`${name}: ${error instanceof Error ? error.message : String(error)}`];
  }
}

export function ofKind<T = Manifest>(manifests: Manifest[], kind: string): (Manifest & T)[] {
  return manifests.filter((manifest) => manifest.kind === kind) as (Manifest & T)[];
}

/** The ConfigMaps of the apps' configuration (one per app, labelled with its component), not the dashboards or rules. */
export function appConfigMaps<T = Manifest>(manifests: Manifest[]): (Manifest & T)[] {
  return ofKind<T>(manifests, 'ConfigMap').filter(
    (configMap) => configMap.metadata.labels?.['app.kubernetes.io/component'] !== undefined,
  );
}

export type DeploymentManifest = Manifest & Required<Pick<IDeployment, 'spec'>>;

/** The one container of each Paygate pod. */
export function containerOf(deployment: DeploymentManifest) {
  const containers = deployment.spec.template.spec?.containers ?? [];
  if (containers.length !== 1)
    throw new Error(`${deployment.metadata.name} has ${containers.length} containers, expected 1`);
  return containers[0];
}
