// What the e2e suites start: this app's modules in the test process, and its environment defaults.
export { startInProcess, type InProcessPaygate } from './in-process';
export { ensureDemoMerchant, ensureDemoOwner, standaloneEnvironment } from './sandbox-setup';
export { STANDALONE_MODULES } from './modules';
