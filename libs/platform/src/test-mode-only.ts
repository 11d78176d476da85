import type { Type } from '@nestjs/common';
import { ConfigError, type Config } from '@paygate/config';

/**
 * A feature module that only a test deployment may run (the sandbox providers) says so with a
 * static `testModeOnly`: what it is, for the refusal.
 */
export interface TestModeOnlyFeature {
  readonly testModeOnly: string;
}

const isTestModeOnly = (feature: Type): feature is Type & TestModeOnlyFeature =>
  typeof (feature as Partial<TestModeOnlyFeature>).testModeOnly === 'string';

/**
 * With MODE=live, an app composed of a test-only feature (the sandbox app, standalone with its
 * in-process sandbox) does not start: a ConfigError naming MODE, before anything is opened.
 */
export function refuseTestModeOnlyFeatures(config: Config, features: readonly Type[]): void {
  if (config.mode !== 'live') return;
  const testOnly = features.find(isTestModeOnly);
  if (testOnly === undefined) return;
  throw new ConfigError(
    'MODE',
    `is live, and this app runs ${testOnly.testModeOnly}: a live deployment runs api-gateway, collections, service-payments and webhook-dispatcher, without the sandbox`,
  );
}
