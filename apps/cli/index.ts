// What the e2e suites run: the command line in the test process, and the migrations it applies.
export { main } from './main';
export { paygateMigrations } from './migrations';
