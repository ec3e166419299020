/** Request schemas of the flaky-test endpoints (spec 4.3 and the addendum's Flaky tests part). */
import { z } from 'zod';
import { MAX_CODEOWNERS_CHARS } from '../engine/flaky/codeowners.js';
import { QUARANTINE_OVERRIDES } from '../engine/flaky/quarantine.js';
import { MAX_WINDOW_DAYS, MAX_WINDOW_RUNS } from '../engine/flaky/settings.js';
import { MAX_UPLOAD_KEY_CHARS } from '../engine/flaky/uploadIdentity.js';
import { anyCaseEnum, isWellFormed, PrNumberSchema, RepoSchema } from './schemas.js';

const SEVEN_DAYS_MS = 7 * 24 * 60 * 60 * 1000;

const OrgSlug = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,254}$/, 'must be an organization slug');

export const FlakyRequest = z.object({
  repo: RepoSchema,
  org_url_slug: OrgSlug,
  page_query: z.object({
    page_size: z.number().int().min(1).max(100),
    page_token: z.string().max(4096).default(''),
  }),
});

const DateTime = z.iso.datetime({ offset: true });

export const ListFailingTestsInput = FlakyRequest.extend({ start_time: DateTime, end_time: DateTime }).superRefine(
  (body, ctx) => {
    const span = Date.parse(body.end_time) - Date.parse(body.start_time);
    if (span < 0)
      ctx.addIssue({ code: 'custom', path: ['end_time'], message: 'end_time must not be before start_time' });
    if (span > SEVEN_DAYS_MS) {
      ctx.addIssue({
        code: 'custom',
        path: ['end_time'],
        message: 'start_time and end_time must be within 7 days of each other',
      });
    }
  },
);
export const ListUnhealthyTestsInput = FlakyRequest.extend({ status: anyCaseEnum(['FLAKY', 'BROKEN'], true) });
export const ListQuarantinedTestsInput = FlakyRequest;

// ---- Our endpoints: upload, quarantine overrides, per-repository settings -----------------------------------------

export const MAX_REPORTS_PER_UPLOAD = 1000;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding (or refusing) control characters is what it is for
const NO_CONTROL = /^[^\x00-\x1f\x7f]*$/;
const WELL_FORMED = [isWellFormed, 'must be valid Unicode (no unpaired surrogate)'] as const;

/** The token's organization when absent (our upload endpoint; the listings require it, as the spec says). */
const OptionalOrgSlug = OrgSlug.nullish().transform((slug) => slug ?? undefined);

const CommitSha = z
  .string()
  .regex(/^[0-9a-fA-F]{7,64}$/, 'must be a commit SHA (7 to 64 hexadecimal digits)')
  .transform((sha) => sha.toLowerCase());

/** A branch as CI reports it; `refs/heads/` is dropped. */
const BranchName = z
  .string()
  .min(1)
  .max(255)
  .regex(NO_CONTROL, 'must not contain control characters')
  .refine(...WELL_FORMED)
  .transform((branch) => branch.replace(/^refs\/heads\//, ''))
  .refine((branch) => branch !== '', 'must name a branch');

const Timestamp = z.union([
  DateTime.transform((text) => Date.parse(text)),
  z.number().int().min(0).max(8_640_000_000_000_000),
]);

export const UploadTestResultsInput = z.object({
  repo: RepoSchema,
  org_url_slug: OptionalOrgSlug,
  commit_sha: CommitSha,
  branch: BranchName,
  pr_number: PrNumberSchema.nullish(),
  variant: z.string().max(255).regex(NO_CONTROL, 'must not contain control characters').nullish(),
  job_url: z.string().max(2048).nullish(),
  timestamp: Timestamp.nullish(),
  codeowners: z.string().max(MAX_CODEOWNERS_CHARS).nullish(),
  /** The repository's root on the runner (ours): test files under it are stored relative to it. */
  repo_root: z.string().max(1024).regex(NO_CONTROL, 'must not contain control characters').nullish(),
  /** The client's name for this upload (ours): sent again with the same upload, nothing is counted twice. */
  upload_key: z
    .string()
    .min(1)
    .max(MAX_UPLOAD_KEY_CHARS)
    .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces (a UUID, a CI job id and attempt, …)')
    .nullish(),
  reports: z
    .array(
      z.object({
        file: z.string().min(1).max(1024).regex(NO_CONTROL, 'must not contain control characters'),
        xml: z.string().refine(...WELL_FORMED),
      }),
    )
    .min(1, 'send at least one report')
    .max(MAX_REPORTS_PER_UPLOAD, `at most ${MAX_REPORTS_PER_UPLOAD} reports per upload`),
});
export type UploadTestResultsBody = z.output<typeof UploadTestResultsInput>;

const TestId = z
  .string()
  .regex(/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/, 'must be a test id (a UUID)')
  .transform((id) => id.toLowerCase());

export const SetTestQuarantineInput = z.object({
  repo: RepoSchema,
  org_url_slug: OrgSlug,
  test_id: TestId,
  /** null clears the override: the test is then quarantined only by auto-quarantine. */
  setting: anyCaseEnum(QUARANTINE_OVERRIDES, true).nullable(),
});

/** get-test-details (the hosted service's): one test of a repository. */
export const GetTestDetailsInput = z.object({ repo: RepoSchema, org_url_slug: OptionalOrgSlug, test_id: TestId });

/** link-ticket-to-test-case (the hosted service's); `ticket_url`, the ticket's address, is ours. */
export const LinkTicketInput = z.object({
  repo: RepoSchema,
  org_url_slug: OptionalOrgSlug,
  test_case_id: TestId,
  external_ticket_id: z.string().min(1).max(255).regex(NO_CONTROL, 'must not contain control characters'),
  ticket_url: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .nullish(),
});

export const GetTestInput = z.object({ org_url_slug: OptionalOrgSlug, test_id: TestId });

export const RepoSettingsRequest = z.object({ repo: RepoSchema, org_url_slug: OrgSlug });

const Share = z.number().min(0).max(1);
const Count = z.number().int().min(1).max(1_000_000);

export const UpdateTestSettingsInput = RepoSettingsRequest.extend({
  auto_quarantine: z.boolean().optional(),
  stable_branches: z.array(BranchName).min(1).max(50).optional(),
  pass_on_retry: z
    .object({ enabled: z.boolean().optional(), resolution_days: z.number().int().min(1).max(90).optional() })
    .optional(),
  failure_rate: z
    .object({
      enabled: z.boolean().optional(),
      window_days: z.number().int().min(1).max(MAX_WINDOW_DAYS).optional(),
      activation_threshold: Share.optional(),
      resolution_threshold: Share.optional(),
      min_runs: Count.optional(),
      branches: anyCaseEnum(['all', 'stable']).optional(),
    })
    .optional(),
  broken: z
    .object({
      enabled: z.boolean().optional(),
      window_runs: z.number().int().min(1).max(MAX_WINDOW_RUNS).optional(),
      activation_threshold: Share.optional(),
      resolution_threshold: Share.optional(),
      min_runs: Count.optional(),
    })
    .optional(),
  infrastructure_failure: z
    .object({ enabled: z.boolean().optional(), threshold: Share.optional(), min_tests: Count.optional() })
    .optional(),
});
export type UpdateTestSettingsBody = z.output<typeof UpdateTestSettingsInput>;
export type FlakyRequestBody = z.output<typeof FlakyRequest>;
