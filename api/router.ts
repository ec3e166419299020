/**
 * The tRPC router: every procedure of the service, with its zod input. The REST facade (server.ts) calls it through
 * a caller; procedures return domain data and views.ts shapes the spec's bodies.
 */
import type { QueueKey } from '../engine/engine.js';
import { engineError } from '../engine/model/errors.js';
import { pagePullRequests } from '../engine/pullRequestListing.js';
import type { QueuePatch } from '../engine/model/queues.js';
import { withCanonicalNames } from './clientSpellings.js';
import { flakyRouter } from './flakyRouter.js';
import { prNumberOf } from './prByBranch.js';
import { webhookRouter } from './webhookRouter.js';
import * as schemas from './schemas.js';
import { procedure, t } from './trpc.js';

import type { Context } from './trpc.js';

export type { Context };

function queueKey(org: string, input: schemas.QueueIdentityBody): QueueKey {
  return { org, repo: input.repo, branch: input.targetBranch };
}

/** Who asked, for the PR's timeline: the caller's words, else the request's token. */
function whoOf(ctx: Context): { by?: string } {
  if (ctx.actor !== undefined) return { by: ctx.actor };
  return ctx.tokenId === undefined ? {} : { by: `token ${ctx.tokenId}` };
}

function patchOf(input: schemas.UpdateQueueBody): QueuePatch {
  const { repo: _repo, targetBranch: _branch, ...patch } = withCanonicalNames(input);
  return patch;
}

/**
 * The head SHA of a PR the queue knows, for a setImpactedTargets without `pr.sha`: 404 when the PR was never
 * submitted, 409 while the git host has not yet told its head (the targets would apply to no head).
 */
function headOf(engine: Context['engine'], key: QueueKey, number: number): string {
  const { pr } = engine.getSubmittedPullRequest(key, number);
  if (pr.sha === '') {
    throw engineError('pr_head_unknown', { number });
  }
  return pr.sha;
}

const mergeQueueRouter = t.router({
  createQueue: procedure.input(schemas.CreateQueueInput).mutation(async ({ ctx, input }) => {
    // The repository first (the local git host creates it): once createQueue answers, people can push to it.
    await ctx.engine.prepareRepository(queueKey(ctx.org, input));
    return ctx.engine.durably.createQueue(queueKey(ctx.org, input), patchOf(input), ctx.tokenId);
  }),
  getQueueSettingsHistory: procedure
    .input(schemas.QueueIdentityInput)
    .query(({ ctx, input }) => ctx.engine.settingsHistory(queueKey(ctx.org, input))),
  getQueue: procedure
    .input(schemas.QueueIdentityInput)
    .query(({ ctx, input }) => ctx.engine.getQueue(queueKey(ctx.org, input))),
  updateQueue: procedure
    .input(schemas.UpdateQueueInput)
    .mutation(({ ctx, input }) =>
      ctx.engine.durably.updateQueue(queueKey(ctx.org, input), patchOf(input), ctx.tokenId),
    ),
  // Deleting a queue with PRs in it is `queue_not_empty`, a 400 (the catalogue says why).
  deleteQueue: procedure
    .input(schemas.QueueIdentityInput)
    .mutation(({ ctx, input }) => ctx.engine.deleteQueue(queueKey(ctx.org, input))),

  submitPullRequest: procedure.input(schemas.SubmitPullRequestInput).mutation(({ ctx, input }) =>
    ctx.engine.durably.submitPullRequest(
      queueKey(ctx.org, input),
      prNumberOf(ctx.engine, queueKey(ctx.org, input), input.pr),
      {
        ...(input.priority == null ? {} : { priority: input.priority }),
        ...(input.noBatch === undefined ? {} : { noBatch: input.noBatch }),
        ...(input.skipTheLine === undefined ? {} : { skipTheLine: input.skipTheLine }),
        ...whoOf(ctx),
      },
    ),
  ),
  cancelPullRequest: procedure
    .input(schemas.PullRequestInput)
    .mutation(({ ctx, input }) =>
      ctx.engine.durably.cancelPullRequest(
        queueKey(ctx.org, input),
        prNumberOf(ctx.engine, queueKey(ctx.org, input), input.pr),
        whoOf(ctx).by,
      ),
    ),
  restartTestsOnPullRequest: procedure
    .input(schemas.PullRequestInput)
    .mutation(({ ctx, input }) =>
      ctx.engine.durably.restartTestsOnPullRequest(
        queueKey(ctx.org, input),
        prNumberOf(ctx.engine, queueKey(ctx.org, input), input.pr),
        whoOf(ctx).by,
      ),
    ),
  getSubmittedPullRequest: procedure.input(schemas.GetSubmittedPullRequestInput).query(({ ctx, input }) => ({
    ...ctx.engine.getSubmittedPullRequest(
      queueKey(ctx.org, input),
      prNumberOf(ctx.engine, queueKey(ctx.org, input), input.pr),
      input.includeTimeline === true,
    ),
    queue: ctx.engine.getQueue(queueKey(ctx.org, input)).queue,
    estimates: ctx.engine.estimates(queueKey(ctx.org, input)),
  })),
  listPullRequests: procedure.input(schemas.ListPullRequestsInput).query(({ ctx, input }) => {
    const key = queueKey(ctx.org, input);
    const filter = {
      ...(input.state === undefined ? {} : { states: Array.isArray(input.state) ? input.state : [input.state] }),
      ...(input.since === undefined ? {} : { since: Date.parse(input.since) }),
      ...(input.until === undefined ? {} : { until: Date.parse(input.until) }),
    };
    const page = pagePullRequests(ctx.engine.listPullRequests(key, filter), {
      ...filter,
      ...(input.cursor === undefined ? {} : { cursor: input.cursor }),
      take: input.take,
    });
    if (page === 'unknown cursor') throw engineError('invalid_cursor', { cursor: input.cursor });
    return { ...page, queue: ctx.engine.getQueue(key).queue, estimates: ctx.engine.estimates(key) };
  }),
  setImpactedTargets: procedure.input(schemas.SetImpactedTargetsInput).mutation(({ ctx, input }) => {
    const key = queueKey(ctx.org, input);
    const number = prNumberOf(ctx.engine, key, input.pr);
    return ctx.engine.durably.setImpactedTargets(
      key,
      { number, sha: input.pr.sha ?? headOf(ctx.engine, key, number) },
      typeof input.impactedTargets === 'string' ? 'ALL' : input.impactedTargets,
    );
  }),
  getMergeQueueTestingDetails: procedure
    .input(schemas.TestingDetailsInput)
    .query(({ ctx, input }) => ctx.engine.getTestRun(queueKey(ctx.org, input), input.testRunId)),
  setCommitStatus: procedure.input(schemas.SetCommitStatusInput).mutation(({ ctx, input }) =>
    ctx.engine.durably.setCommitStatus(ctx.org, {
      repo: input.repo,
      sha: input.sha,
      context: input.context,
      state: input.state,
      ...(input.url === undefined ? {} : { url: input.url }),
      ...(input.description === undefined ? {} : { description: input.description }),
    }),
  ),

  getMergeQueueMetrics: procedure.input(schemas.MetricsQueryInput).query(({ ctx, input }) => {
    // `repo` is `owner/name`; an owner may itself hold groups (`group/subgroup/name`), the name never does.
    const slash = input.repo?.lastIndexOf('/') ?? -1;
    const filter =
      input.repo === undefined
        ? { host: input.repoHost }
        : { host: input.repoHost, owner: input.repo.slice(0, slash), name: input.repo.slice(slash + 1) };
    return ctx.engine.metrics(ctx.org, filter);
  }),
});

/** One flat router: the REST facade calls every procedure by its name. */
export const appRouter = t.mergeRouters(mergeQueueRouter, flakyRouter, webhookRouter);

export type AppRouter = typeof appRouter;
export const createCaller = t.createCallerFactory(appRouter);
