/** Prints one plain closing line ("jest: N passed, N failed, N skipped") that CI tooling can read. */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests: passed, numFailedTests: failed, numPendingTests: skipped, numRuntimeErrorTestSuites: broken } = results;
    process.stdout.write(`\njest: ${passed} passed, ${failed + broken} failed, ${skipped} skipped\n`);
  }
}
module.exports = SummaryReporter;
