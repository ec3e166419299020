/** The flaky-test endpoints of the REST facade (mounted under /v1/). Procedures return the response bodies. */
import type { Endpoint } from './endpoint.js';

export const FLAKY_ENDPOINTS: Endpoint[] = [
  { path: 'flaky-tests/list-failing-tests', call: (c, b) => c.listFailingTests(b as never) },
  { path: 'flaky-tests/list-unhealthy-tests', call: (c, b) => c.listUnhealthyTests(b as never) },
  { path: 'flaky-tests/list-quarantined-tests', call: (c, b) => c.listQuarantinedTests(b as never) },
  { path: 'flaky-tests/get-test-details', call: (c, b) => c.getTestDetails(b as never) },
  { path: 'flaky-tests/link-ticket-to-test-case', call: (c, b) => c.linkTicketToTestCase(b as never) },
  // Ours: ingestion, manual quarantine overrides, per-repository monitor settings.
  { path: 'flaky-tests/upload', call: (c, b) => c.uploadTestResults(b as never) },
  { path: 'flaky-tests/get-test', call: (c, b) => c.getTest(b as never) },
  { path: 'flaky-tests/set-quarantine', call: (c, b) => c.setTestQuarantine(b as never) },
  { path: 'flaky-tests/get-settings', call: (c, b) => c.getTestMonitorSettings(b as never) },
  { path: 'flaky-tests/update-settings', call: (c, b) => c.updateTestMonitorSettings(b as never) },
];
