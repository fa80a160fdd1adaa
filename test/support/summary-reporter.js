/**
 * Prints the run's totals as one plain line, "Summary: N passed, N failed[, N skipped]", which
 * CI reads to tell a run that tested something from one that did not; and the slowest files, so
 * CI's 50 minutes can be shared out by figures (docs/testing.md, "Tiers").
 */
const SLOWEST = 12;

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const line = `Summary: ${results.numPassedTests} passed, ${results.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''}`;
    const slowest = results.testResults
      .map((file) => ({ file: file.testFilePath.replace(`${process.cwd()}/`, ''), ms: file.perfStats.end - file.perfStats.start }))
      .sort((a, b) => b.ms - a.ms)
      .slice(0, SLOWEST)
      .map((each) => `${each.file} ${Math.round(each.ms / 1000)} s`);
    process.stdout.write(`\n${line}\n${slowest.length > 1 ? `Slowest files: ${slowest.join(', ')}\n` : ''}`);
  }
}
module.exports = SummaryReporter;
