// Prints one plain closing line, "N passed, N failed, N skipped", after vitest's own report, so that CI logs end
// with a count any reader (or tool) can find without parsing vitest's coloured summary.
export default class SummaryReporter {
  onTestRunEnd(testModules) {
    const counts = { passed: 0, failed: 0, skipped: 0 }
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === "passed") counts.passed++
        else if (state === "failed") counts.failed++
        else counts.skipped++
      }
    }
    process.stdout.write(`\n${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n`)
  }
}
