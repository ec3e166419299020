/**
 * The tRPC router: every procedure of the service, with its zod input. The REST facade (server.ts) calls it through
 * a caller; procedures return domain data and views.ts shapes the spec's bodies.
 */
import type { QueueKey } from '../engine/engine.js';
import { renderMetrics } from '../engine/metrics.js';
import type { QueuePatch } from '../engine/queues.js';
import { flakyRouter } from './flakyRouter.js';
import * as schemas from './schemas.js';
import { notYet, procedure, t } from './trpc.js';

export type { Context } from './trpc.js';

function queueKey(org: string, input: schemas.QueueIdentityBody): QueueKey {
  return { org, repo: input.repo, branch: input.targetBranch };
}

function patchOf(input: schemas.UpdateQueueBody): QueuePatch {
  const { repo: _repo, targetBranch: _branch, ...patch } = input;
  return patch;
}

const mergeQueueRouter = t.router({
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

});

/** One flat router: the REST facade calls every procedure by its name. */
export const appRouter = t.mergeRouters(mergeQueueRouter, flakyRouter);

export type AppRouter = typeof appRouter;
export const createCaller = t.createCallerFactory(appRouter);
