#!/usr/bin/env node
// Prints the closing `N passed, N failed` line from jest's JSON reports (one per jest run, summed).
// A suite that failed to run (its tests never started) counts as one failure so it cannot vanish
// from the total; a missing report counts as one failure too.
const fs = require('node:fs');

let passed = 0;
let failed = 0;
for (const reportPath of process.argv.slice(2)) {
  try {
    const report = JSON.parse(fs.readFileSync(reportPath, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests + report.numRuntimeErrorTestSuites;
  } catch (error) {
    failed += 1;
    console.error(`no jest report at ${reportPath}: ${error.message}`);
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
