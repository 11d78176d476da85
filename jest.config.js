// One jest run covers every project; path aliases come from tsconfig.base.json so tests
// import libraries exactly as the apps do.
const { compilerOptions } = require('./tsconfig.base.json');
const fs = require('node:fs');
const os = require('node:os');

const swcrc = JSON.parse(fs.readFileSync(`${__dirname}/.swcrc`, 'utf8'));
const moduleNameMapper = Object.fromEntries(
  Object.entries(compilerOptions.paths).map(([alias, [target]]) => [`^${alias}$`, `<rootDir>/${target}`]),
);

module.exports = {
  rootDir: __dirname,
  testEnvironment: 'node',
  roots: ['<rootDir>/apps', '<rootDir>/libs', '<rootDir>/packages', '<rootDir>/tools', '<rootDir>/e2e'],
  testMatch: ['**/*.spec.ts'],
  transform: {
    '^.+\\.ts$': ['@swc/jest', { ...swcrc, swcrc: false }],
    // ESM-only dependencies that Node loads with require(esm) but jest's module loader cannot: compile them to CommonJS.
    '^.+\\.js$': ['@swc/jest', { swcrc: false, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  moduleNameMapper,
  setupFiles: ['reflect-metadata'],
  // The e2e suites check every answer of the API against the OpenAPI document (libs/testing response-validator.ts).
  setupFilesAfterEnv: ['<rootDir>/libs/testing/src/jest-response-validation.ts'],
  testTimeout: 60_000,
  // A worker runs many suites, and what some leave behind (WebAssembly memory of PGlite instances, module copies) grew
  // workers past 3 GB in a CI run, where garbage collection slowed every later suite into its time-outs: a worker
  // above this after a suite is replaced by a fresh one.
  workerIdleMemoryLimit: '1536MB',
  // Suites that share a broker or a database keep to topics, groups and schemas of their own, and
  // the ones that restart a broker run one of their own, so suites run in parallel with Kafka too.
  // A worker per core but one, and at least two: jest's own default would leave a 2-core machine
  // one worker, and most suites wait on sockets and child processes as much as they compute.
  maxWorkers: Math.max(2, os.availableParallelism() - 1),
};
