/** The flaky-test procedures (spec 4.3, the addendum's Flaky tests part, and our upload and quarantine endpoints). */
import { engineError } from '../engine/model/errors.js';
import { repoId as repoIdOf, type SettingsPatch } from '../engine/flaky/index.js';
import * as schemas from './flakySchemas.js';
import { procedure, t, type Context } from './trpc.js';
import {
  failingTestView,
  pageView,
  quarantinedTestView,
  settingsView,
  testDetailView,
  ticketView,
  unhealthyTestView,
  uploadView,
} from './flakyViews.js';

const service = (ctx: Context) => ctx.engine.flakyTests;

const pageOf = (input: {
  repo: schemas.FlakyRequestBody['repo'];
  page_query: { page_size: number; page_token: string };
}) => ({
  repo: input.repo,
  pageSize: input.page_query.page_size,
  pageToken: input.page_query.page_token,
});

function patchOf(input: schemas.UpdateTestSettingsBody): SettingsPatch {
  const patch: SettingsPatch = {};
  if (input.auto_quarantine !== undefined) patch.autoQuarantine = input.auto_quarantine;
  if (input.stable_branches !== undefined) patch.stableBranches = input.stable_branches;
  if (input.pass_on_retry !== undefined) {
    patch.passOnRetry = { enabled: input.pass_on_retry.enabled, resolutionDays: input.pass_on_retry.resolution_days };
  }
  if (input.failure_rate !== undefined) {
    const rate = input.failure_rate;
    patch.failureRate = {
      enabled: rate.enabled,
      windowDays: rate.window_days,
      activationRate: rate.activation_threshold,
      resolutionRate: rate.resolution_threshold,
      minRuns: rate.min_runs,
      branches: rate.branches,
    };
  }
  if (input.broken !== undefined) {
    const broken = input.broken;
    patch.broken = {
      enabled: broken.enabled,
      windowRuns: broken.window_runs,
      activationRate: broken.activation_threshold,
      resolutionRate: broken.resolution_threshold,
      minRuns: broken.min_runs,
    };
  }
  if (input.infrastructure_failure !== undefined) {
    const infra = input.infrastructure_failure;
    patch.infrastructureFailure = { enabled: infra.enabled, threshold: infra.threshold, minTests: infra.min_tests };
  }
  return patch;
}

export const flakyRouter = t.router({
  listFailingTests: procedure.input(schemas.ListFailingTestsInput).query(({ ctx, input }) => {
    const listing = service(ctx).listFailing(ctx.org, input.org_url_slug, {
      ...pageOf(input),
      start: Date.parse(input.start_time),
      end: Date.parse(input.end_time),
    });
    return {
      tests: listing.rows.map((row) => failingTestView(row, input.repo, ctx.publicUrl)),
      page: pageView(listing.page),
    };
  }),
  listUnhealthyTests: procedure.input(schemas.ListUnhealthyTestsInput).query(({ ctx, input }) => {
    const listing = service(ctx).listUnhealthy(ctx.org, input.org_url_slug, { ...pageOf(input), status: input.status });
    return {
      tests: listing.rows.map((row) => unhealthyTestView(row, input.repo, ctx.publicUrl)),
      page: pageView(listing.page),
    };
  }),
  listQuarantinedTests: procedure.input(schemas.ListQuarantinedTestsInput).query(({ ctx, input }) => {
    const listing = service(ctx).listQuarantined(ctx.org, input.org_url_slug, pageOf(input));
    return { quarantined_tests: listing.rows.map(quarantinedTestView), page: pageView(listing.page) };
  }),

  uploadTestResults: procedure.input(schemas.UploadTestResultsInput).mutation(async ({ ctx, input }) => {
    const upload = {
      repo: input.repo,
      sha: input.commit_sha,
      branch: input.branch,
      variant: input.variant ?? '',
      reports: input.reports,
      ...(input.pr_number != null && { prNumber: input.pr_number }),
      ...(input.job_url != null && { jobUrl: input.job_url }),
      ...(input.timestamp != null && { timestamp: input.timestamp }),
      ...(input.codeowners != null && { codeowners: input.codeowners }),
      ...(input.repo_root != null && { repoRoot: input.repo_root }),
      ...(input.upload_key != null && { uploadKey: input.upload_key }),
    };
    return uploadView(await service(ctx).uploadOffThread(ctx.org, upload, input.org_url_slug));
  }),
  setTestQuarantine: procedure.input(schemas.SetTestQuarantineInput).mutation(({ ctx, input }) => {
    const { test, quarantined } = service(ctx).setQuarantine(
      ctx.org,
      input.org_url_slug,
      input.repo,
      input.test_id,
      input.setting,
    );
    return {
      test_id: test.id,
      name: test.name,
      setting: test.override?.setting ?? null,
      quarantined,
      status: test.status.value.toUpperCase(),
    };
  }),
  getTest: procedure.input(schemas.GetTestInput).query(({ ctx, input }) => {
    const { repo, row } = service(ctx).testDetail(ctx.org, input.org_url_slug ?? ctx.org, input.test_id);
    return testDetailView(row, repo, ctx.publicUrl);
  }),
  getTestDetails: procedure.input(schemas.GetTestDetailsInput).query(({ ctx, input }) => {
    const { repo, row } = service(ctx).testDetail(ctx.org, input.org_url_slug ?? ctx.org, input.test_id);
    if (repoIdOf(repo) !== repoIdOf(input.repo)) {
      throw engineError('test_not_found', {
        testId: input.test_id,
        repo: `${input.repo.host}/${input.repo.owner}/${input.repo.name}`,
      });
    }
    return { test: testDetailView(row, repo, ctx.publicUrl) };
  }),
  linkTicketToTestCase: procedure.input(schemas.LinkTicketInput).mutation(({ ctx, input }) => {
    const test = service(ctx).linkTicket(ctx.org, input.org_url_slug, input.repo, input.test_case_id, {
      externalId: input.external_ticket_id,
      ...(input.ticket_url == null ? {} : { url: input.ticket_url }),
    });
    return { test_case_id: test.id, external_ticket_id: input.external_ticket_id, ...ticketView(test.ticket) };
  }),
  getTestMonitorSettings: procedure
    .input(schemas.RepoSettingsRequest)
    .query(({ ctx, input }) => settingsView(service(ctx).getSettings(ctx.org, input.org_url_slug, input.repo))),
  updateTestMonitorSettings: procedure
    .input(schemas.UpdateTestSettingsInput)
    .mutation(({ ctx, input }) =>
      settingsView(service(ctx).updateSettings(ctx.org, input.org_url_slug, input.repo, patchOf(input))),
    ),
});
