/**
 * External servers for integration suites. A suite runs when its server is configured; with
 * REQUIRE_SERVICES=1 a missing server is a failing test, never a silent skip.
 */
export type ExternalService = 'postgres' | 'kafka' | 'kurrentdb';

const configured: Record<ExternalService, () => string | undefined> = {
  postgres: () => (/^postgres(ql)?:\/\//.test(process.env.STORE_URL ?? '') ? process.env.STORE_URL : undefined),
  kafka: () => (process.env.BROKER_URL?.startsWith('kafka://') ? process.env.BROKER_URL : undefined),
  kurrentdb: () => process.env.KURRENTDB_URL || undefined,
};

const howToConfigure: Record<ExternalService, string> = {
  postgres: 'STORE_URL=postgres://…',
  kafka: 'BROKER_URL=kafka://host:port',
  kurrentdb: 'KURRENTDB_URL=kurrentdb://…',
};

/** KurrentDB is optional even under REQUIRE_SERVICES: this machine cannot run it. */
const requiredWhenServicesAre: Record<ExternalService, boolean> = { postgres: true, kafka: true, kurrentdb: false };

export function serviceUrl(service: ExternalService): string | undefined {
  return configured[service]();
}

/**
 * Declares `suite` when the service is configured. When it is required but missing, declares
 * one failing test that says which variable to set.
 */
export function describeWithService(service: ExternalService, title: string, suite: (url: string) => void): void {
  const url = serviceUrl(service);
  if (url) {
    describe(title, () => suite(url));
  } else if (process.env.REQUIRE_SERVICES === '1' && requiredWhenServicesAre[service]) {
    describe(title, () => {
      it(`needs ${service} (REQUIRE_SERVICES=1)`, () => {
        throw new Error(`REQUIRE_SERVICES=1 but ${service} is not configured: set ${howToConfigure[service]}`);
      });
    });
  }
}

/** A schema name unique to one test suite, so parallel suites share a database safely. */
export function uniqueSchema(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
}
