/*
 * One typed configuration, parsed once at start (loadConfig) from a schema where every
 * environment variable is declared once (schema.ts).
 *
 * A library of its own rather than part of libs/platform: parsing configuration needs neither
 * NestJS nor the infrastructure drivers platform opens, so the logger, merchants, the unit specs
 * and tools can use the schema without loading them, and the dependency points one way
 * (platform -> config, never back). runApp in libs/platform loads it and provides it through
 * Nest DI under the CONFIG token.
 */
export { ConfigError, redactUrl } from './config-error';
export { Secret } from './secret';
export {
  CONFIG_SCHEMA,
  decodeMasterKey,
  DEPLOYMENT_MODES,
  settingsOf,
  type Config,
  type ConfigOf,
  type DeploymentMode,
} from './schema';
export { parseDurationMs, type Setting } from './settings';
export { deepFreeze, loadConfig, readSetting, standaloneDefaults, withDefaults, type Env } from './load-config';
export { README_TABLE_END, README_TABLE_START, renderConfigTable } from './readme-table';
