/**
 * From parsed reports to the tests of one upload: test cases with the same identity (in one report or across
 * reports) are several attempts of one test. Counts follow the usual JUnit reading: a test's state is its most
 * severe attempt (error > failure > passed > skipped); surefire's flaky retries are attempts but do not change the
 * state of a test that finally passed.
 */
import { repoRelativePath } from './paths.js';
import { testId, type RepoRef, type TestIdentity } from './identity.js';
import { parseJUnitReport, ReportError, type Outcome, type ParsedReport } from './junit.js';
import { aggregateOutcome } from './reportStats.js';
import { normalizeFailureMessage } from './messages.js';
import type { UploadCounts } from './records.js';

export interface UploadedTest {
  id: string;
  identity: TestIdentity;
  line?: number;
  outcome: Outcome;
  attempts: { passed: number; failed: number; skipped: number };
  /** Normalised failure message → failed attempts with it. */
  messages: Map<string, number>;
}

export interface AggregatedUpload {
  tests: Map<string, UploadedTest>;
  counts: UploadCounts;
  /** Failed tests that cannot be tracked: nameless test cases, failures a suite only counted. */
  untrackedFailures: number;
  /** Tests that ran (passed or failed), for the infrastructure-failure rule. */
  ran: number;
}

export const NO_MESSAGE = '(no failure message)';

export function parseReports(reports: readonly { file: string; xml: string }[]): ParsedReport[] {
  return reports.map(({ file, xml }) => parseJUnitReport(file, xml));
}

export { ReportError };

/** `repoRoot`: the repository's root on the runner; test files under it are made relative to it (see paths.ts). */
export function aggregateUpload(
  repo: RepoRef,
  variant: string,
  reports: readonly ParsedReport[],
  repoRoot?: string,
): AggregatedUpload {
  const tests = new Map<string, UploadedTest>();
  const counts: UploadCounts = { tests: 0, passed: 0, failed: 0, skipped: 0 };
  let untrackedFailures = 0;
  const countOutcome = (outcome: Outcome) => {
    counts.tests += 1;
    if (outcome === 'passed') counts.passed += 1;
    else if (outcome === 'skipped') counts.skipped += 1;
    else counts.failed += 1;
  };
  const outcomes = new Map<string, Outcome[]>();
  for (const report of reports) {
    for (const testCase of report.cases) {
      if (testCase.anonymous) {
        countOutcome(testCase.outcome);
        if (testCase.outcome === 'failed' || testCase.outcome === 'error') untrackedFailures += 1;
        continue;
      }
      const identity: TestIdentity = {
        file: repoRelativePath(testCase.file, repoRoot),
        classname: testCase.classname,
        parent: testCase.parent,
        name: testCase.name,
        variant,
      };
      const id = testId(repo, identity);
      let test = tests.get(id);
      if (test === undefined) {
        test = {
          id,
          identity,
          outcome: testCase.outcome,
          attempts: { passed: 0, failed: 0, skipped: 0 },
          messages: new Map(),
        };
        if (testCase.line !== undefined) test.line = testCase.line;
        tests.set(id, test);
      }
      (outcomes.get(id) ?? outcomes.set(id, []).get(id))?.push(testCase.outcome);
      const failedHere =
        (testCase.outcome === 'failed' || testCase.outcome === 'error' ? 1 : 0) + testCase.retriedFailures;
      test.attempts.failed += failedHere;
      if (testCase.outcome === 'passed') test.attempts.passed += 1;
      if (testCase.outcome === 'skipped') test.attempts.skipped += 1;
      const messages = testCase.messages.map(normalizeFailureMessage);
      for (let i = 0; i < failedHere; i++) {
        const message = messages[i] ?? messages[0] ?? NO_MESSAGE;
        test.messages.set(message, (test.messages.get(message) ?? 0) + 1);
      }
    }
    const declared = report.declared;
    counts.tests += declared.tests;
    counts.skipped += declared.skipped;
    counts.failed += declared.failures + declared.errors;
    counts.passed += Math.max(0, declared.tests - declared.skipped - declared.failures - declared.errors);
    untrackedFailures += declared.failures + declared.errors;
  }
  for (const [id, list] of outcomes) {
    const test = tests.get(id) as UploadedTest;
    test.outcome = aggregateOutcome(list);
    countOutcome(test.outcome);
  }
  const ran = counts.passed + counts.failed;
  return { tests, counts, untrackedFailures, ran };
}
