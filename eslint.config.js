// @ts-check
/**
 * Paygate lint config (ESLint 9 flat config, CommonJS).
 *
 * Module boundaries are enforced by @nx/enforce-module-boundaries using the
 * `type:*` and `scope:*` tags from each project.json. Spec/test files get a
 * second copy of the constraints that additionally allows `type:testing`.
 * The e2e project (e2e/) is test code throughout; tools/ (bench, soak, local, helm, ci,
 * containers) is one project, so both are inside the boundaries like everything else.
 */
const { defineConfig, globalIgnores } = require('eslint/config');
const tseslint = require('typescript-eslint');
const nx = require('@nx/eslint-plugin');
const prettier = require('eslint-config-prettier');
const { createProjectGraphAsync } = require('nx/src/devkit-exports');

const TS_FILES = ['**/*.ts'];
// `*-test-setup.ts`: setup shared by the spec files next to it (jest does not collect it, the build leaves it out).
const TEST_FILES = ['**/*.spec.ts', '**/*.test.ts', '**/*-test-setup.ts'];

/** Infrastructure drivers that must never leak into domain/contracts code. */
const INFRA_DRIVERS = ['pg', '@electric-sql/*', 'kafkajs', '@kurrent/*'];
/** The metrics client: the platform owns the registry, everything else records through @paygate/metrics. */
const METRICS_CLIENT = 'prom-client';
/** What domain and kernel code never imports: it stays pure, with no framework, driver or validation library. */
const PURE_CODE_BANNED = [
  '@nestjs/*',
  ...INFRA_DRIVERS,
  METRICS_CLIENT,
  'class-validator',
  'class-transformer',
  'rxjs',
];

const SCOPES = [
  'scope:collections',
  'scope:gateway',
  'scope:webhooks',
  'scope:payments',
  'scope:disbursements',
  'scope:service-payments',
  'scope:sandbox',
  'scope:shared',
  'scope:standalone',
  'scope:cli',
];

/**
 * The apps' exported bootstraps (each app's index.ts): Nx forbids importing an application, and
 * only the e2e suites may, to start the app in their own process.
 */
const APP_BOOTSTRAPS = ['@paygate/standalone', '@paygate/cli'];

/**
 * Builds the depConstraints list. With `withTesting`, every `type:*` source
 * may additionally depend on `type:testing` (used for spec files only).
 */
function depConstraints(withTesting) {
  const t = (tags) => (withTesting && !tags.includes('type:testing') ? [...tags, 'type:testing'] : tags);
  return [
    // ---- layering (type) ----
    // type:kernel is the shared kernel (money, signing): pure code every layer may use.
    {
      sourceTag: 'type:app',
      onlyDependOnLibsWithTags: t(['type:feature', 'type:infra', 'type:contracts', 'type:domain', 'type:kernel']),
    },
    {
      // a feature never imports another feature
      sourceTag: 'type:feature',
      onlyDependOnLibsWithTags: t(['type:domain', 'type:infra', 'type:contracts', 'type:kernel']),
      bannedExternalImports: [METRICS_CLIENT],
    },
    {
      sourceTag: 'type:domain',
      onlyDependOnLibsWithTags: t(['type:domain', 'type:contracts', 'type:kernel']),
      bannedExternalImports: PURE_CODE_BANNED,
    },
    {
      sourceTag: 'type:infra',
      onlyDependOnLibsWithTags: t(['type:infra', 'type:contracts', 'type:kernel']),
    },
    {
      // messages, API records, the provider catalogue and the request rules: pure, on the kernel only
      sourceTag: 'type:contracts',
      onlyDependOnLibsWithTags: t(['type:contracts', 'type:kernel']),
      bannedExternalImports: [...INFRA_DRIVERS, METRICS_CLIENT],
    },
    {
      // the merchant package (packages/paygate-node): installed by merchants on its own, so it depends on nothing
      sourceTag: 'type:sdk',
      onlyDependOnLibsWithTags: withTesting ? ['type:testing'] : [],
      allowedExternalImports: ['openapi-fetch', 'node:*'],
    },
    {
      // currencies, minor units, fees, the decider shape; signatures come from the merchant package, so both sides
      // share one code
      sourceTag: 'type:kernel',
      onlyDependOnLibsWithTags: t(['type:kernel', 'type:sdk']),
      bannedExternalImports: PURE_CODE_BANNED,
    },
    {
      sourceTag: 'type:testing',
      onlyDependOnLibsWithTags: [
        'type:infra',
        'type:contracts',
        'type:domain',
        'type:kernel',
        'type:sdk',
        'type:testing',
      ],
    },
    {
      // bench, soak and the local broker drive the apps from outside and read what they stored
      sourceTag: 'type:tool',
      onlyDependOnLibsWithTags: t([
        'type:infra',
        'type:contracts',
        'type:domain',
        'type:kernel',
        'type:sdk',
        'type:tool',
      ]),
    },
    {
      // the end-to-end suites: the apps' bootstraps (APP_BOOTSTRAPS), the test helpers, and what they assert on
      sourceTag: 'type:e2e',
      onlyDependOnLibsWithTags: [
        'type:feature',
        'type:infra',
        'type:contracts',
        'type:domain',
        'type:kernel',
        'type:sdk',
        'type:testing',
        'type:tool',
      ],
    },
    // ---- bounded contexts (scope) ----
    { sourceTag: 'scope:collections', onlyDependOnLibsWithTags: ['scope:collections', 'scope:shared'] },
    // The gateway validates requests with the contract-level rules (libs/contracts: the provider
    // catalogue, planCollection) and never imports a context's domain or service.
    { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:shared'] },
    // The dispatcher knows other contexts only by their published events (libs/contracts).
    { sourceTag: 'scope:webhooks', onlyDependOnLibsWithTags: ['scope:webhooks', 'scope:shared'] },
    { sourceTag: 'scope:payments', onlyDependOnLibsWithTags: ['scope:payments', 'scope:shared'] },
    // Money out reaches the wallet only through the payments contract (libs/contracts), never its domain.
    { sourceTag: 'scope:disbursements', onlyDependOnLibsWithTags: ['scope:disbursements', 'scope:shared'] },
    // The service-payments deployable hosts the payments context and, beside its wallets, the disbursements one.
    {
      sourceTag: 'scope:service-payments',
      onlyDependOnLibsWithTags: ['scope:payments', 'scope:disbursements', 'scope:shared'],
    },
    { sourceTag: 'scope:sandbox', onlyDependOnLibsWithTags: ['scope:sandbox', 'scope:shared'] },
    { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared'] },
    { sourceTag: 'scope:standalone', onlyDependOnLibsWithTags: SCOPES },
    // The paygate CLI rebuilds every context's read models, so it composes them as standalone does.
    { sourceTag: 'scope:cli', onlyDependOnLibsWithTags: SCOPES },
    { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: [...SCOPES, 'scope:tools'] },
    { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: [...SCOPES, 'scope:tools'] },
  ];
}

function boundaries(withTesting, allow = []) {
  return [
    'error',
    {
      enforceBuildableLibDependency: false,
      allow,
      // Only spec files may import type:testing, and libs/testing exercises the
      // libs it tests (e.g. the event-store conformance suite), so a
      // lib -> testing -> lib cycle is expected and only ever spec-induced.
      ignoredCircularDependencies: [['tag:type:testing', '*']],
      depConstraints: depConstraints(withTesting),
    },
  ];
}

const configs = [
  globalIgnores(['**/dist/', '**/node_modules/', '**/coverage/', '**/.nx/']),

  // typescript-eslint recommended (non type-checked), TypeScript files only
  ...tseslint.configs.recommended.map((config) => ({ ...config, files: TS_FILES })),

  {
    files: TS_FILES,
    plugins: { '@nx': nx },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@nx/enforce-module-boundaries': boundaries(false),
    },
  },

  // spec/test files may additionally depend on type:testing
  {
    files: TEST_FILES,
    rules: {
      '@nx/enforce-module-boundaries': boundaries(true),
    },
  },

  // the e2e suites start the apps in their own process
  {
    files: ['e2e/**/*.ts'],
    rules: {
      '@nx/enforce-module-boundaries': boundaries(true, APP_BOOTSTRAPS),
    },
  },

  // keep last: turns off stylistic rules that would fight Prettier
  { ...prettier, files: TS_FILES },
];

/**
 * @nx/enforce-module-boundaries only *reads* the cached project graph
 * (.nx/workspace-data/project-graph.json). With no cache (fresh checkout / CI)
 * it silently skips itself, and a stale cache misses new projects/tags. So
 * (re)build the graph before ESLint runs; no daemon, no network. ESLint 9
 * accepts a config file that exports a promise.
 */
async function buildConfig() {
  await createProjectGraphAsync({ exitOnError: false });
  return defineConfig(configs);
}

module.exports = buildConfig();
