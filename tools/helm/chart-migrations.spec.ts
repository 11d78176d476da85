import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describeWithService } from '@paygate/testing';
import { chartShowingHooks, render, SHOWN_HOOK, suiteFolder } from './chart-test-setup';
import { PRODUCTION_VALUES } from './helm';
import { appConfigMaps, ofKind, schemaProblems, type Manifest } from './manifests';

const migrateOnStart = (manifests: Manifest[]) =>
  appConfigMaps<IConfigMap>(manifests).map((configMap) => configMap.data?.MIGRATE_ON_START);

describeWithService('helm', 'the chart and database migrations (real Helm engine)', () => {
  const folder = suiteFolder('paygate-chart-migrations-');
  let jobOn: string;
  let chart: string;
  beforeAll(() => {
    jobOn = folder.valuesFile('job-on', 'migrations:\n  job:\n    enabled: true\n');
    chart = chartShowingHooks(folder.dir);
  });

  it('by default renders no Job and leaves each app to migrate as it starts', async () => {
    const manifests = await render([], chart);
    expect(ofKind(manifests, 'Job')).toEqual([]);
    expect(migrateOnStart(manifests).every((value) => value === undefined)).toBe(true);
  });

  it.each([
    {
      values: 'default values',
      files: () => [jobOn],
      command: ['node', 'dist/apps/cli/main.js', 'migrate', '--sandbox'],
    },
    {
      values: 'k8s/values-production.yaml',
      files: () => [PRODUCTION_VALUES, jobOn],
      command: ['node', 'dist/apps/cli/main.js', 'migrate'],
    },
  ])(
    'with the Job on ($values), runs `paygate migrate` as a pre-install/pre-upgrade hook and has every app only check',
    async ({ files, command }) => {
      const manifests = await render(files(), chart);
      const jobs = ofKind<IJob>(manifests, 'Job');
      expect(jobs.flatMap(schemaProblems)).toEqual([]);
      expect(jobs).toHaveLength(1);
      const [job] = jobs;
      expect(job.metadata.annotations).toMatchObject({ [SHOWN_HOOK]: 'pre-install,pre-upgrade' });
      const pod = job.spec!.template.spec!;
      expect(pod.restartPolicy).toBe('Never');
      expect(pod.securityContext).toMatchObject({ runAsNonRoot: true });
      expect(pod.automountServiceAccountToken).toBe(false);
      const [container] = pod.containers;
      expect(container.command).toEqual(command);
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
      });
      expect(container.resources?.requests).toEqual({ cpu: expect.anything(), memory: expect.anything() });
      // Credentials only by reference to the existing Secret.
      expect(
        container.env?.map((variable) => [variable.name, variable.valueFrom?.secretKeyRef?.key, 'value' in variable]),
      ).toEqual([
        ['STORE_URL', 'STORE_URL', false],
        ['EVENT_STORE_URL', 'EVENT_STORE_URL', false],
      ]);

      // As a hook, the Job is no part of the release's manifest.
      expect(ofKind(await render(files()), 'Job')).toEqual([]);

      const flags = migrateOnStart(manifests);
      expect(flags.length).toBeGreaterThan(0);
      expect(flags.every((value) => value === 'false')).toBe(true);
    },
  );
});
