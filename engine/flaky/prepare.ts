/**
 * The pure, costly half of an upload: parse every report (an invalid one rejects the whole upload), count its test
 * cases against the limit, and aggregate them into tests. It touches no store, so it can run on a worker thread
 * (`prepareOffThread`) while the event loop serves other requests.
 */
import { engineError } from '../model/errors.js';
import { aggregateUpload, parseReports, ReportError, type AggregatedUpload } from './aggregate.js';
import type { RepoRef } from './identity.js';

export const MAX_TEST_CASES_PER_UPLOAD = 200_000;

export interface PrepareInput {
  repo: RepoRef;
  variant: string;
  reports: { file: string; xml: string }[];
  repoRoot?: string;
}

export function prepareUpload(input: PrepareInput): AggregatedUpload {
  let parsed;
  try {
    parsed = parseReports(input.reports);
  } catch (error) {
    if (error instanceof ReportError) throw engineError('invalid_report', { problem: error.message });
    throw error;
  }
  const cases = parsed.reduce((sum, report) => sum + report.cases.length, 0);
  if (cases > MAX_TEST_CASES_PER_UPLOAD) {
    throw engineError('too_many_test_cases', { limit: MAX_TEST_CASES_PER_UPLOAD, cases });
  }
  return aggregateUpload(input.repo, input.variant, parsed, input.repoRoot);
}
