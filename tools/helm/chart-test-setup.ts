import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CHART_DIR, renderChart, type HelmRun } from './helm';
import { parseManifests, type Manifest } from './manifests';

/** The rendered objects, or the reason Helm gave for not rendering them. */
export function manifestsOf(run: HelmRun): Manifest[] {
  if (!run.ok) throw new Error(`helm template failed:\n${run.stderr}`);
  return parseManifests(run.stdout);
}

/** The chart (or `chart`) rendered with `files`, as objects. */
export async function render(files: string[] = [], chart?: string): Promise<Manifest[]> {
  return manifestsOf(await renderChart(files, chart));
}

/**
 * helm-java renders a release's manifest without its hooks, so hooks are shown by rendering a
 * copy of the chart whose hook annotations carry another name (the only difference).
 */
export const SHOWN_HOOK = 'shown-by-test/hook';

/** A copy of the chart in `dir` whose hooks render. */
export function chartShowingHooks(dir: string): string {
  const chart = join(dir, 'paygate');
  cpSync(CHART_DIR, chart, { recursive: true });
  for (const file of readdirSync(join(chart, 'templates'))) {
    const path = join(chart, 'templates', file);
    writeFileSync(path, readFileSync(path, 'utf8').replaceAll('"helm.sh/hook', `"${SHOWN_HOOK}`));
  }
  return chart;
}

/** A folder for the suite's values files, made before its tests and removed after them. */
export function suiteFolder(prefix: string) {
  let dir = '';
  beforeAll(() => (dir = mkdtempSync(join(tmpdir(), prefix))));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get dir() {
      return dir;
    },
    /** Writes `yaml` to a values file named after `name`, and answers its path. */
    valuesFile(name: string, yaml: string): string {
      const file = join(dir, `${name.replace(/\W+/g, '-')}.yaml`);
      writeFileSync(file, yaml);
      return file;
    },
  };
}
