/**
 * The tRPC router: every procedure of the service, with its zod input. The REST facade (server.ts) calls it through
 * a caller; procedures return domain data and views.ts shapes the spec's bodies.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import type { Engine, QueueKey } from '../engine/engine.js';
import { EngineError, type EngineErrorKind } from '../engine/errors.js';
import { renderMetrics } from '../engine/metrics.js';
import type { QueuePatch } from '../engine/queues.js';
import * as schemas from './schemas.js';

export interface Context {
  /** The organization of the request's token. */
  org: string;
  engine: Engine;
}

const t = initTRPC.context<Context>().create();

const TRPC_CODE: Record<EngineErrorKind, TRPCError['code']> = {
  not_found: 'NOT_FOUND',
  conflict: 'CONFLICT',
  invalid: 'BAD_REQUEST',
  not_implemented: 'NOT_IMPLEMENTED',
};

/** Engine errors become the matching tRPC error; anything else stays an internal error. */
const procedure = t.procedure.use(async ({ next }) => {
  const result = await next();
  if (!result.ok && result.error.cause instanceof EngineError) {
    const cause = result.error.cause;
    throw new TRPCError({ code: TRPC_CODE[cause.kind], message: cause.message, cause });
  }
  return result;
});

function queueKey(org: string, input: schemas.QueueIdentityBody): QueueKey {
  return { org, repo: input.repo, branch: input.targetBranch };
}

function patchOf(input: schemas.UpdateQueueBody): QueuePatch {
  const { repo: _repo, targetBranch: _branch, ...patch } = input;
  return patch;
}

/** For capabilities that are routed and validated but not built yet: a clear 501. */
function notYet(what: string): never {
  throw new TRPCError({ code: 'NOT_IMPLEMENTED', message: `${what} is not available in this version of Greenline yet` });
}

export const appRouter = t.router({
  createQueue: procedure
    .input(schemas.CreateQueueInput)
    .mutation(({ ctx, input }) => ctx.engine.createQueue(queueKey(ctx.org, input), patchOf(input))),
  getQueue: procedure
    .input(schemas.QueueIdentityInput)
    .query(({ ctx, input }) => ctx.engine.getQueue(queueKey(ctx.org, input))),
  updateQueue: procedure
    .input(schemas.UpdateQueueInput)
    .mutation(({ ctx, input }) => ctx.engine.updateQueue(queueKey(ctx.org, input), patchOf(input))),
  deleteQueue: procedure
    .input(schemas.QueueIdentityInput)
    .mutation(({ ctx, input }) => ctx.engine.deleteQueue(queueKey(ctx.org, input))),

  submitPullRequest: procedure.input(schemas.SubmitPullRequestInput).mutation(() => notYet('submitting pull requests')),
  cancelPullRequest: procedure.input(schemas.PullRequestInput).mutation(() => notYet('cancelling pull requests')),
  restartTestsOnPullRequest: procedure
    .input(schemas.PullRequestInput)
    .mutation(() => notYet('restarting tests on pull requests')),
  getSubmittedPullRequest: procedure
    .input(schemas.GetSubmittedPullRequestInput)
    .query(() => notYet('reading submitted pull requests')),
  setImpactedTargets: procedure.input(schemas.SetImpactedTargetsInput).mutation(() => notYet('impacted targets')),
  getMergeQueueTestingDetails: procedure.input(schemas.TestingDetailsInput).query(() => notYet('test run details')),

  getMergeQueueMetrics: procedure.input(schemas.MetricsQueryInput).query(({ ctx, input }) => {
    // `repo` is `owner/name`; an owner may itself hold groups (`group/subgroup/name`), the name never does.
    const slash = input.repo?.lastIndexOf('/') ?? -1;
    const filter =
      input.repo === undefined
        ? { host: input.repoHost }
        : { host: input.repoHost, owner: input.repo.slice(0, slash), name: input.repo.slice(slash + 1) };
    return renderMetrics(ctx.engine.listQueues(ctx.org, filter));
  }),

  listFailingTests: procedure.input(schemas.ListFailingTestsInput).query(() => notYet('the failing tests listing')),
  listUnhealthyTests: procedure.input(schemas.ListUnhealthyTestsInput).query(() => notYet('the unhealthy tests listing')),
  listQuarantinedTests: procedure
    .input(schemas.ListQuarantinedTestsInput)
    .query(() => notYet('the quarantined tests listing')),
});

export type AppRouter = typeof appRouter;
export const createCaller = t.createCallerFactory(appRouter);
