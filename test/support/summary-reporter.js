/**
 * Prints the run's totals as one plain line, "Summary: N passed, N failed[, N skipped]", which
 * CI reads to tell a run that tested something from one that did not.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `Summary: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    process.stdout.write(`\n${line}\n`);
  }
}
module.exports = SummaryReporter;
