// `npm run test:containers`: the integration suites against PostgreSQL, Kafka and KurrentDB
// started in Docker by testcontainers (tools/containers). Needs a Docker engine, so it is not
// part of `npm test` or CI; tsc and eslint still check tools/containers.
const base = require('./jest.config.js');

module.exports = {
  ...base,
  testMatch: [
    '<rootDir>/libs/event-store/**/*.spec.ts',
    '<rootDir>/libs/messaging/**/*.spec.ts',
    '<rootDir>/libs/webhooks/service/**/delivery-worker*.spec.ts',
    '<rootDir>/e2e/cli/**/*.spec.ts',
    '<rootDir>/e2e/distributed/cli-projections.spec.ts',
    '<rootDir>/e2e/distributed/distributed.spec.ts',
  ],
  // It restarts the broker with scripts/kafka.sh, which owns a local Kafka, not a container.
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/libs/messaging/src/fault-recovery.spec.ts'],
  globalSetup: '<rootDir>/tools/containers/global-setup.ts',
  globalTeardown: '<rootDir>/tools/containers/global-teardown.ts',
  // Suites share one broker; the distributed one starts many processes.
  maxWorkers: 1,
  testTimeout: 120_000,
};
