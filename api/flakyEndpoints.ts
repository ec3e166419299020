/** The flaky-test endpoints of the REST facade. */
import type { Endpoint } from './endpoint.js';

export const FLAKY_ENDPOINTS: Endpoint[] = [
  { path: 'flaky-tests/list-failing-tests', call: (c, b) => c.listFailingTests(b as never) },
  { path: 'flaky-tests/list-unhealthy-tests', call: (c, b) => c.listUnhealthyTests(b as never) },
  { path: 'flaky-tests/list-quarantined-tests', call: (c, b) => c.listQuarantinedTests(b as never) },
];
