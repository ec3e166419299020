/** Response bodies of the flaky-test endpoints as zod schemas (spec 2.6, 2.7 and the addendum; the rest ours). */
import { z } from 'zod';
import { QUARANTINE_OVERRIDES } from '../engine/flaky/quarantine.js';

const Timestamp = z.iso.datetime({ offset: true });
const Count = z.number().int().min(0);
const Share = z.number().min(0).max(1);

export const PageBody = z.object({
  total_rows: Count,
  total_pages: Count,
  next_page_token: z.string(),
  prev_page_token: z.string(),
  last_page_token: z.string(),
  page_index: Count,
});

/** Present only when a ticket with a known address is linked (the hosted document requires `html_url`). */
export const TicketBody = z.object({ html_url: z.url(), external_id: z.string() });

const StatusBody = z.object({
  value: z.enum(['healthy', 'flaky', 'broken']),
  reason: z.string(),
  timestamp: Timestamp,
});

/** list-unhealthy-tests rows. */
export const UnhealthyTestBody = z.object({
  id: z.uuid(),
  repository: z.object({ html_url: z.url() }),
  html_url: z.url(),
  name: z.string(),
  variant: z.string(),
  status: StatusBody,
  codeowners: z.array(z.string()),
  pull_requests_impacted_last_7d: Count,
  quarantined: z.boolean(),
  file_path: z.string(),
  parent: z.string(),
  classname: z.string(),
  ticket: TicketBody.optional(),
});

/** list-failing-tests rows: the unhealthy fields plus failures and rates. */
export const FailingTestBody = UnhealthyTestBody.extend({
  most_common_failures: z.array(z.object({ summary: z.string(), occurrence_count: Count, last_occurrence: Timestamp })),
  failure_rate_last_7d: Share,
  failure_rate_last_24h: Share,
});

const QuarantineSetting = z.enum(['ALWAYS_QUARANTINE', 'AUTO_QUARANTINE']);

export const QuarantinedTestBody = z.object({
  name: z.string(),
  parent: z.string(),
  file: z.string(),
  classname: z.string(),
  codeowners: z.array(z.string()),
  quarantined_at: Timestamp,
  status_last_updated_at: Timestamp,
  test_case_id: z.uuid(),
  variant: z.string(),
  status: z.enum(['HEALTHY', 'FLAKY', 'BROKEN']),
  quarantine_setting: QuarantineSetting,
});

export const FailingTestsBody = z.object({ tests: z.array(FailingTestBody), page: PageBody });
export const UnhealthyTestsBody = z.object({ tests: z.array(UnhealthyTestBody), page: PageBody });
export const QuarantinedTestsBody = z.object({ quarantined_tests: z.array(QuarantinedTestBody), page: PageBody });

/** One test (get-test; inside `test` for get-test-details): the failing fields, its repository and quarantine. */
export const TestDetailBody = FailingTestBody.extend({
  repository: z.object({ html_url: z.url(), host: z.string(), owner: z.string(), name: z.string() }),
  quarantine_setting: QuarantineSetting.nullable(),
  quarantine_override: z.enum(QUARANTINE_OVERRIDES).nullable(),
});
export const TestDetailsBody = z.object({ test: TestDetailBody });

/** The hosted service answers `{}`; Greenline says what it linked (`ticket` when the address is known). */
export const LinkTicketBody = z.object({
  test_case_id: z.uuid(),
  external_ticket_id: z.string(),
  ticket: TicketBody.optional(),
});

export const UploadBody = z.object({
  upload_id: z.uuid(),
  tests: Count,
  passed: Count,
  failed: Count,
  skipped: Count,
  infrastructure_failure: z.boolean(),
  /** True when the same upload (its upload_key, else the same body) had been stored in full: nothing was counted again. */
  already_stored: z.boolean(),
});

export const SetQuarantineBody = z.object({
  test_id: z.uuid(),
  name: z.string(),
  setting: z.enum(QUARANTINE_OVERRIDES).nullable(),
  quarantined: z.boolean(),
  status: z.enum(['HEALTHY', 'FLAKY', 'BROKEN']),
});

export const TestSettingsBody = z.object({
  auto_quarantine: z.boolean(),
  stable_branches: z.array(z.string()),
  pass_on_retry: z.object({ enabled: z.boolean(), resolution_days: Count }),
  failure_rate: z.object({
    enabled: z.boolean(),
    window_days: Count,
    activation_threshold: Share,
    resolution_threshold: Share,
    min_runs: Count,
    branches: z.enum(['all', 'stable']),
  }),
  broken: z.object({
    enabled: z.boolean(),
    window_runs: Count,
    activation_threshold: Share,
    resolution_threshold: Share,
    min_runs: Count,
  }),
  infrastructure_failure: z.object({ enabled: z.boolean(), threshold: Share, min_tests: Count }),
});
