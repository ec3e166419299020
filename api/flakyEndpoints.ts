/** The flaky-test endpoints of the REST facade (mounted under /v1/). Procedures return the response bodies. */
import { endpoint, type Endpoint } from './endpoint.js';
import * as out from './flakyResponseSchemas.js';
import * as schemas from './flakySchemas.js';

export const FLAKY_ENDPOINTS: Endpoint[] = [
  endpoint({
    path: 'flaky-tests/list-failing-tests',
    scope: 'read',
    summary: 'Distinct tests that failed in a time range (at most 7 days)',
    input: schemas.ListFailingTestsInput,
    output: out.FailingTestsBody,
    call: (c, b) => c.listFailingTests(b),
  }),
  endpoint({
    path: 'flaky-tests/list-unhealthy-tests',
    scope: 'read',
    summary: 'Flaky or broken tests',
    input: schemas.ListUnhealthyTestsInput,
    output: out.UnhealthyTestsBody,
    call: (c, b) => c.listUnhealthyTests(b),
  }),
  endpoint({
    path: 'flaky-tests/list-quarantined-tests',
    scope: 'read',
    summary: 'Quarantined tests',
    input: schemas.ListQuarantinedTestsInput,
    output: out.QuarantinedTestsBody,
    call: (c, b) => c.listQuarantinedTests(b),
  }),
  endpoint({
    path: 'flaky-tests/get-test-details',
    scope: 'read',
    summary: 'One test of a repository, inside {test: …}',
    input: schemas.GetTestDetailsInput,
    output: out.TestDetailsBody,
    call: (c, b) => c.getTestDetails(b),
  }),
  endpoint({
    path: 'flaky-tests/link-ticket-to-test-case',
    scope: 'write',
    summary: 'Link a ticket to a test (replacing any linked before)',
    input: schemas.LinkTicketInput,
    output: out.LinkTicketBody,
    call: (c, b) => c.linkTicketToTestCase(b),
  }),
  // Ours: ingestion, manual quarantine overrides, per-repository monitor settings.
  endpoint({
    path: 'flaky-tests/upload',
    scope: 'write',
    summary: 'Upload JUnit XML reports of one CI job (what `greenline upload` calls)',
    ours: true,
    input: schemas.UploadTestResultsInput,
    output: out.UploadBody,
    call: (c, b) => c.uploadTestResults(b),
  }),
  endpoint({
    path: 'flaky-tests/get-test',
    scope: 'read',
    summary: "One test of the token's organization by its id (behind its page)",
    ours: true,
    input: schemas.GetTestInput,
    output: out.TestDetailBody,
    call: (c, b) => c.getTest(b),
  }),
  endpoint({
    path: 'flaky-tests/set-quarantine',
    scope: 'write',
    summary: "Set or clear a test's manual quarantine override",
    ours: true,
    input: schemas.SetTestQuarantineInput,
    output: out.SetQuarantineBody,
    call: (c, b) => c.setTestQuarantine(b),
  }),
  endpoint({
    path: 'flaky-tests/get-settings',
    scope: 'read',
    summary: "A repository's monitor and quarantine settings",
    ours: true,
    input: schemas.RepoSettingsRequest,
    output: out.TestSettingsBody,
    call: (c, b) => c.getTestMonitorSettings(b),
  }),
  endpoint({
    path: 'flaky-tests/update-settings',
    scope: 'admin',
    summary: "Change a repository's monitor and quarantine settings",
    ours: true,
    input: schemas.UpdateTestSettingsInput,
    output: out.TestSettingsBody,
    call: (c, b) => c.updateTestMonitorSettings(b),
  }),
];
