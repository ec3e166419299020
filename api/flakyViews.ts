/** Response bodies of the flaky-test endpoints, with exactly the spec's field names (2.6, 2.7 and the addendum). */
import type {
  FailingRow,
  FlakyTestRecord,
  PageInfo,
  QuarantinedRow,
  RepoRef,
  RepoSettings,
  TestRow,
  UploadResult,
} from '../engine/flaky/index.js';

import type { z } from 'zod';
import type {
  FailingTestBody,
  PageBody,
  QuarantinedTestBody,
  TestDetailBody,
  TestSettingsBody,
  TicketBody,
  UnhealthyTestBody,
  UploadBody,
} from './flakyResponseSchemas.js';

const iso = (ms: number) => new Date(ms).toISOString();

export function pageView(page: PageInfo): z.infer<typeof PageBody> {
  return {
    total_rows: page.totalRows,
    total_pages: page.totalPages,
    next_page_token: page.nextPageToken,
    prev_page_token: page.prevPageToken,
    last_page_token: page.lastPageToken,
    page_index: page.pageIndex,
  };
}

export function repositoryUrl(repo: RepoRef): string {
  return `https://${repo.host}/${repo.owner}/${repo.name}`;
}

/** The test's page on this service. */
export function testUrl(publicUrl: string, testId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/tests/${testId}`;
}

/**
 * The linked ticket, when its address is known: the hosted service's document requires `html_url` (a URI) whenever
 * `ticket` is there, so a ticket linked by id alone is not shown in rows.
 */
export function ticketView(ticket: FlakyTestRecord['ticket']): { ticket?: z.infer<typeof TicketBody> } {
  if (ticket?.url === undefined) return {};
  return { ticket: { html_url: ticket.url, external_id: ticket.externalId } };
}

function commonFields(row: TestRow, repo: RepoRef, publicUrl: string) {
  const { test } = row;
  return {
    head: {
      id: test.id,
      repository: { html_url: repositoryUrl(repo) },
      html_url: testUrl(publicUrl, test.id),
      name: test.name,
      variant: test.variant,
      status: { value: test.status.value, reason: test.status.reason, timestamp: iso(test.status.at) },
    },
    tail: {
      codeowners: row.codeowners,
      pull_requests_impacted_last_7d: row.pullRequestsImpacted7d,
      quarantined: row.quarantine !== undefined,
      file_path: test.file,
      parent: test.parent,
      classname: test.classname,
      // A row carries `ticket` only when one is linked: the hosted service's document requires its html_url to be a URI.
      ...ticketView(row.test.ticket),
    },
  };
}

/** An unhealthy test (list-unhealthy-tests): the failing test's fields less the failures and rates. */
export function unhealthyTestView(row: TestRow, repo: RepoRef, publicUrl: string): z.infer<typeof UnhealthyTestBody> {
  const { head, tail } = commonFields(row, repo, publicUrl);
  return { ...head, ...tail };
}

/** A failing test (list-failing-tests), fields in the spec's order. */
export function failingTestView(row: FailingRow, repo: RepoRef, publicUrl: string): z.infer<typeof FailingTestBody> {
  const { head, tail } = commonFields(row, repo, publicUrl);
  return {
    ...head,
    most_common_failures: row.mostCommonFailures.map((failure) => ({
      summary: failure.summary,
      occurrence_count: failure.count,
      last_occurrence: iso(failure.lastAt),
    })),
    failure_rate_last_7d: row.failureRate7d,
    failure_rate_last_24h: row.failureRate24h,
    ...tail,
  };
}

/** One test (our get-test endpoint, behind its page): the failing test's fields, with its repository and quarantine. */
export function testDetailView(row: FailingRow, repo: RepoRef, publicUrl: string): z.infer<typeof TestDetailBody> {
  return {
    ...failingTestView(row, repo, publicUrl),
    repository: { html_url: repositoryUrl(repo), host: repo.host, owner: repo.owner, name: repo.name },
    quarantine_setting: row.quarantine ?? null,
    quarantine_override: row.test.override?.setting ?? null,
  };
}

export function quarantinedTestView(row: QuarantinedRow): z.infer<typeof QuarantinedTestBody> {
  const { test } = row;
  return {
    name: test.name,
    parent: test.parent,
    file: test.file,
    classname: test.classname,
    codeowners: row.codeowners,
    quarantined_at: iso(row.quarantinedAt),
    status_last_updated_at: iso(test.status.at),
    test_case_id: test.id,
    variant: test.variant,
    status: test.status.value.toUpperCase() as 'HEALTHY' | 'FLAKY' | 'BROKEN',
    quarantine_setting: row.quarantine,
  };
}

export function uploadView(result: UploadResult): z.infer<typeof UploadBody> {
  return {
    upload_id: result.uploadId,
    tests: result.tests,
    passed: result.passed,
    failed: result.failed,
    skipped: result.skipped,
    infrastructure_failure: result.infrastructureFailure,
    already_stored: result.alreadyStored,
  };
}

export function settingsView(settings: RepoSettings): z.infer<typeof TestSettingsBody> {
  return {
    auto_quarantine: settings.autoQuarantine,
    stable_branches: settings.stableBranches,
    pass_on_retry: { enabled: settings.passOnRetry.enabled, resolution_days: settings.passOnRetry.resolutionDays },
    failure_rate: {
      enabled: settings.failureRate.enabled,
      window_days: settings.failureRate.windowDays,
      activation_threshold: settings.failureRate.activationRate,
      resolution_threshold: settings.failureRate.resolutionRate,
      min_runs: settings.failureRate.minRuns,
      branches: settings.failureRate.branches,
    },
    broken: {
      enabled: settings.broken.enabled,
      window_runs: settings.broken.windowRuns,
      activation_threshold: settings.broken.activationRate,
      resolution_threshold: settings.broken.resolutionRate,
      min_runs: settings.broken.minRuns,
    },
    infrastructure_failure: {
      enabled: settings.infrastructureFailure.enabled,
      threshold: settings.infrastructureFailure.threshold,
      min_tests: settings.infrastructureFailure.minTests,
    },
  };
}
