/** The flaky-test procedures (spec 4.3, the addendum's Flaky tests part, and our upload and quarantine endpoints). */
import * as schemas from './flakySchemas.js';
import { notYet, procedure, t } from './trpc.js';

export const flakyRouter = t.router({
  listFailingTests: procedure.input(schemas.ListFailingTestsInput).query(() => notYet('the failing tests listing')),
  listUnhealthyTests: procedure.input(schemas.ListUnhealthyTestsInput).query(() => notYet('the unhealthy tests listing')),
  listQuarantinedTests: procedure
    .input(schemas.ListQuarantinedTestsInput)
    .query(() => notYet('the quarantined tests listing')),
});
