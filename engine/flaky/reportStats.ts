/**
 * What a parsed JUnit report holds, counted: distinct tests by their aggregate state and runs by their outcome (the
 * terms of the corpus' results files), and the aggregate outcome of a test that ran several times.
 */
import type { Outcome, ParsedCase, ParsedReport } from './junit.js';

/** Counts in the terms of the corpus' results files: distinct tests by their aggregate state, and runs. */
export interface ReportStats {
  suites: number;
  tests: number;
  tests_succ: number;
  tests_skip: number;
  tests_fail: number;
  tests_error: number;
  runs: number;
  runs_succ: number;
  runs_skip: number;
  runs_fail: number;
  runs_error: number;
}

/** error > failure > passed > skipped: the state of a test that ran several times. */
export function aggregateOutcome(outcomes: Iterable<Outcome>): Outcome {
  let seen = 0;
  for (const outcome of outcomes)
    seen |= outcome === 'error' ? 8 : outcome === 'failed' ? 4 : outcome === 'passed' ? 2 : 1;
  return seen & 8 ? 'error' : seen & 4 ? 'failed' : seen & 2 ? 'passed' : 'skipped';
}

/** The key that tells test cases of one report apart (anonymous cases are each their own test). */
function caseKey(testCase: ParsedCase, index: number): string {
  return testCase.anonymous
    ? `#${index}`
    : JSON.stringify([testCase.file, testCase.classname, testCase.parent, testCase.name]);
}

export function reportStats(report: ParsedReport): ReportStats {
  const byTest = new Map<string, Outcome[]>();
  report.cases.forEach((testCase, index) => {
    const key = caseKey(testCase, index);
    const list = byTest.get(key) ?? [];
    list.push(testCase.outcome);
    byTest.set(key, list);
  });
  const stats: ReportStats = {
    suites: report.suites,
    tests: byTest.size + report.declared.tests,
    tests_succ: 0,
    tests_skip: report.declared.skipped,
    tests_fail: report.declared.failures,
    tests_error: report.declared.errors,
    runs: report.cases.length + report.declared.tests,
    runs_succ: 0,
    runs_skip: report.declared.skipped,
    runs_fail: report.declared.failures,
    runs_error: report.declared.errors,
  };
  const bump = (outcome: Outcome, prefix: 'tests' | 'runs') => {
    if (outcome === 'skipped') stats[`${prefix}_skip`] += 1;
    else if (outcome === 'failed') stats[`${prefix}_fail`] += 1;
    else if (outcome === 'error') stats[`${prefix}_error`] += 1;
  };
  for (const outcomes of byTest.values()) bump(aggregateOutcome(outcomes), 'tests');
  for (const testCase of report.cases) bump(testCase.outcome, 'runs');
  stats.tests_succ = stats.tests - stats.tests_skip - stats.tests_fail - stats.tests_error;
  stats.runs_succ = stats.runs - stats.runs_skip - stats.runs_fail - stats.runs_error;
  return stats;
}
