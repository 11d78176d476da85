import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { IConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { describeWithService } from '@paygate/testing';
import { CHART_DIR, PRODUCTION_VALUES, renderChart } from './helm';
import { ofKind, parseManifests, schemaProblems, type Manifest } from './manifests';

/**
 * helm-java renders a release's manifest without its hooks, so hooks are shown by rendering a
 * copy of the chart whose hook annotations carry another name (the only difference).
 */
const SHOWN_HOOK = 'shown-by-test/hook';
function chartShowingHooks(dir: string): string {
  const chart = join(dir, 'paygate');
  cpSync(CHART_DIR, chart, { recursive: true });
  for (const file of readdirSync(join(chart, 'templates'))) {
    const path = join(chart, 'templates', file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('"helm.sh/hook', `"${SHOWN_HOOK}`));
  }
  return chart;
}

async function render(files: string[], chart?: string): Promise<Manifest[]> {
  const run = await renderChart(files, chart);
  if (!run.ok) throw new Error(`helm template failed:\n${run.stderr}`);
  return parseManifests(run.stdout);
}

const migrateOnStart = (manifests: Manifest[]) =>
  ofKind<IConfigMap>(manifests, 'ConfigMap').map((configMap) => configMap.data?.MIGRATE_ON_START);

describeWithService('helm', 'the chart and database migrations (real Helm engine)', () => {
  let dir: string;
  let jobOn: string;
  let chart: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'paygate-chart-migrations-'));
    jobOn = join(dir, 'job-on.yaml');
    writeFileSync(jobOn, 'migrations:\n  job:\n    enabled: true\n');
    chart = chartShowingHooks(dir);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
