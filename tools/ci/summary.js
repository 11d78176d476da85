#!/usr/bin/env node
// Prints the closing `N passed, N failed` line from jest's JSON report. A suite that failed to
// run (its tests never started) counts as one failure so it cannot vanish from the total.
const fs = require('node:fs');

const reportPath = process.argv[2];
let report;
try {
  report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
} catch (error) {
  console.log(`0 passed, 1 failed`);
  console.error(`no jest report at ${reportPath}: ${error.message}`);
  process.exit(1);
}
const failed = report.numFailedTests + report.numRuntimeErrorTestSuites;
console.log(`${report.numPassedTests} passed, ${failed} failed`);
process.exit(failed > 0 || report.numPassedTests === 0 ? 1 : 0);
