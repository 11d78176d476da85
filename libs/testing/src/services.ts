import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { openSqlDatabase } from '@paygate/sql';

/**
 * External servers (and the tools: the browser, the Helm engine) for integration suites. A suite
 * runs when its server is configured; with REQUIRE_SERVICES=1 a missing server is a failing
 * test, never a silent skip.
 */
export type ExternalService =
  'postgres' | 'kafka' | 'kurrentdb' | 'chromium' | 'helm' | 'client-generators' | 'promtool';

const chromiumPath = () => process.env.CHROMIUM_PATH || '/usr/bin/chromium';

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where `command` is on PATH, if it is. */
function onPath(command: string): string | undefined {
  return (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .map((dir) => join(dir, command))
    .find(isExecutable);
}

/** What the generated Python client imports (openapi-generator's `python` client's requirements). */
const PYTHON_CLIENT_MODULES = ['pydantic', 'urllib3', 'dateutil', 'typing_extensions'];

/** python3 on PATH with pydantic 2 and the other modules the generated client needs. */
function pythonForClients(): string | undefined {
  const python = onPath('python3');
  if (!python) return undefined;
  const check = `import ${PYTHON_CLIENT_MODULES.join(', ')}; assert pydantic.VERSION.startswith('2.')`;
  return spawnSync(python, ['-c', check], { stdio: 'ignore', timeout: 30_000 }).status === 0 ? python : undefined;
}

const configured: Record<ExternalService, () => string | undefined> = {
  postgres: () => (/^postgres(ql)?:\/\//.test(process.env.STORE_URL ?? '') ? process.env.STORE_URL : undefined),
  kafka: () => (process.env.BROKER_URL?.startsWith('kafka://') ? process.env.BROKER_URL : undefined),
  kurrentdb: () => process.env.KURRENTDB_URL || undefined,
  // Not a server: the browser's executable, when it is there to run.
  chromium: () => (isExecutable(chromiumPath()) ? chromiumPath() : undefined),
  // Not a server: scripts/helm.sh runs Helm in Java and fetches it with Maven; the url is java's path.
  helm: () => (onPath('mvn') ? onPath('java') : undefined),
  // Not a server: openapi-generator (Java, fetched with Maven) and what builds and runs its clients; the url is java's
  // path.
  'client-generators': () => (onPath('mvn') && onPath('javac') && pythonForClients() ? onPath('java') : undefined),
  // Not a server: Prometheus's promtool (and prometheus beside it), from Debian's prometheus package; the url is its path.
  promtool: () => (onPath('prometheus') ? onPath('promtool') : undefined),
};

const howToConfigure: Record<ExternalService, () => string> = {
  postgres: () => 'STORE_URL=postgres://…',
  kafka: () => 'BROKER_URL=kafka://host:port',
  kurrentdb: () => 'KURRENTDB_URL=kurrentdb://…',
  chromium: () =>
    `CHROMIUM_PATH=/path/to/chromium, or install it (apt-get install chromium); no executable at ${chromiumPath()}`,
  helm: () =>
    'PATH to java (17+) and mvn, or install them (apt-get install default-jdk-headless maven): scripts/helm.sh fetches the Helm engine from Maven Central',
  'client-generators': () =>
    `PATH to java and javac (a JDK, 11+), mvn and python3 with ${PYTHON_CLIENT_MODULES.join(', ')} (pydantic 2), or install them (apt-get install default-jdk-headless maven; pip install 'pydantic>=2' urllib3 python-dateutil): scripts/openapi-generator.sh fetches openapi-generator from Maven Central`,
  promtool: () => 'PATH to promtool and prometheus, or install them (apt-get install prometheus)',
};

/** KurrentDB is optional even under REQUIRE_SERVICES: this machine cannot run it. */
const requiredWhenServicesAre: Record<ExternalService, boolean> = {
  postgres: true,
  kafka: true,
  kurrentdb: false,
  chromium: true,
  helm: true,
  'client-generators': true,
  promtool: true,
};

/** Tools rather than servers: nobody configures them, so a missing one is said on stderr. */
const tools: readonly ExternalService[] = ['chromium', 'helm', 'client-generators', 'promtool'];

export function serviceUrl(service: ExternalService): string | undefined {
  return configured[service]();
}

/** What a suite gated on a service does: run against it, fail saying what to set, or skip saying the same. */
export type ServiceGate = { run: string } | { fail: string } | { skip: string };

/** The gate of `service` given its url (when configured) and whether REQUIRE_SERVICES=1. */
export function serviceGate(service: ExternalService, url: string | undefined, requireServices: boolean): ServiceGate {
  if (url) return { run: url };
  if (requireServices && requiredWhenServicesAre[service])
    return { fail: `REQUIRE_SERVICES=1 but ${service} is not configured: set ${howToConfigure[service]()}` };
  return { skip: `needs ${service}: set ${howToConfigure[service]()}` };
}

/**
 * Declares `suite` when the service is configured (a browser's `url` is its executable). When
 * it is required but missing, declares one failing test that says which variable to set; when
 * missing and optional, one skipped test that says the same, so a file of such suites reports a
 * skip (jest fails a file that declares no test at all).
 */
export function describeWithService(service: ExternalService, title: string, suite: (url: string) => void): void {
  const gate = serviceGate(service, serviceUrl(service), process.env.REQUIRE_SERVICES === '1');
  if ('run' in gate) {
    describe(title, () => suite(gate.run));
  } else if ('fail' in gate) {
    describe(title, () => {
      it(`needs ${service} (REQUIRE_SERVICES=1)`, () => {
        throw new Error(gate.fail);
      });
    });
  } else {
    describe.skip(title, () => {
      it(gate.skip, () => undefined);
    });
    // Not a server anyone configures: say what to install, straight to stderr (jest drops a
    // file's console output when it runs several files).
    if (tools.includes(service)) process.stderr.write(`not run: ${title}: ${gate.skip}\n`);
  }
}

/** A schema name unique to one test suite, so parallel suites share a database safely. */
export function uniqueSchema(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}

/** Drops the suites' schemas that exist on the PostgreSQL server at `url`. */
export async function dropSchemas(url: string, schemas: readonly string[]): Promise<void> {
  const db = await openSqlDatabase(url);
  try {
    for (const schema of schemas) await db.query(`drop schema if exists ${schema} cascade`);
  } finally {
    await db.close();
  }
}
