/**
 * The dashboard's PR, run and history pages, and the actions on a PR (cancel, restart its tests, priority,
 * skip-the-line). An action checks the token's scope as the API does (write) and calls the same procedure through the
 * router, so it validates and is refused alike; the PR's timeline records who asked.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { engineError } from '../engine/model/errors.js';
import { scopeAllows, scopeOf } from '../engine/tokens.js';
import { isEnqueued } from '../machines/vocabulary.js';
import { HISTORY_PAGE_SIZE, historyBody } from '../web/historyPage.js';
import type { PageOptions } from '../web/layout.js';
import { PR_ACTIONS, type PrAction } from '../web/prActions.js';
import { prBody } from '../web/prPage.js';
import { keyOf, queueById, queueName, queuePath } from '../web/queueAccess.js';
import { runBody } from '../web/runPage.js';
import type { Session } from '../web/session.js';
import { formOf, prNumber, requireScope, type Handler } from './dashboardHttp.js';
import { httpError } from './errors.js';
import type { createCaller } from './router.js';

export interface PrPagesOptions {
  engine: Engine;
  signedIn: (handler: Handler) => (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply>;
  show: (reply: FastifyReply, session: Session, options: Omit<PageOptions, 'org'>, status?: number) => FastifyReply;
  caller: (session: Session) => ReturnType<typeof createCaller>;
}

/** Whether the session's token may act on PRs (scope write or wider). */
export function canWrite(engine: Engine, session: Session): boolean {
  const token = engine.token(session.tokenId);
  return token !== undefined && scopeAllows(scopeOf(token), 'write');
}

/** Whether the session's token may change the queue (scope admin). */
export function canAdmin(engine: Engine, session: Session): boolean {
  const token = engine.token(session.tokenId);
  return token !== undefined && scopeAllows(scopeOf(token), 'admin');
}

function numberOf(text: string): number {
  const number = prNumber(text);
  if (number === undefined) throw httpError('invalid_field', { notPrNumber: text });
  return number;
}

export function registerPrPages(scope: FastifyInstance, options: PrPagesOptions): void {
  const { engine, signedIn, show, caller } = options;
  type Params = { queueId: string; number: string };

  scope.get(
    '/queues/:queueId/prs/:number',
    signedIn((request, reply, session) => {
      const params = request.params as Params;
      const queue = queueById(engine, session.org, params.queueId);
      const number = numberOf(params.number);
      return show(reply, session, {
        title: `Pull request #${number}`,
        live: queue.id,
        body: prBody(engine, queue, number, { canWrite: canWrite(engine, session) }),
      });
    }),
  );

  scope.get(
    '/queues/:queueId/runs/:runId',
    signedIn((request, reply, session) => {
      const params = request.params as { queueId: string; runId: string };
      const queue = queueById(engine, session.org, params.queueId);
      const details = engine.getTestRun(keyOf(queue), params.runId);
      return show(reply, session, {
        title: `Test run ${params.runId}`,
        live: queue.id,
        body: runBody(queue, details, engine.clock.now()),
      });
    }),
  );

  scope.get(
    '/queues/:queueId/history',
    signedIn((request, reply, session) => {
      const queue = queueById(engine, session.org, (request.params as { queueId: string }).queueId);
      const query = request.query as { q?: unknown; after?: unknown };
      const search = typeof query.q === 'string' ? query.q.slice(0, 200) : '';
      const after = typeof query.after === 'string' ? query.after : '';
      const page = engine.history(keyOf(queue), { search, after, take: HISTORY_PAGE_SIZE });
      if (page === 'unknown cursor') throw httpError('invalid_field', { notPage: after });
      return show(reply, session, {
        title: `History of ${queueName(queue)}`,
        live: queue.id,
        body: historyBody(queue, page, { search, after }, engine.clock.now()),
      });
    }),
  );

  const act = async (session: Session, request: FastifyRequest, action: PrAction): Promise<string> => {
    requireScope(engine, session, 'write', 'acting on a pull request');
    const params = request.params as Params;
    const queue = queueById(engine, session.org, params.queueId);
    const number = numberOf(params.number);
    const body = { repo: queue.repo, targetBranch: queue.branch, pr: { number } };
    const form = formOf(request);
    const api = caller(session);
    if (action === 'cancel') await api.cancelPullRequest(body);
    else if (action === 'retest') await api.restartTestsOnPullRequest(body);
    else {
      // Priority and skip-the-line are a submission again (as through the API), which must not bring back a PR that left.
      if (!isEnqueued(engine.getSubmittedPullRequest(keyOf(queue), number).pr.state)) {
        throw engineError('pr_not_queued', { number });
      }
      if (action === 'priority') {
        const priority = form.get('priority');
        if (priority === null || priority === '')
          throw httpError('invalid_field', { missing: 'priority', oneOf: ['urgent', 'high', 'medium', 'low'] });
        await api.submitPullRequest({ ...body, priority });
      } else {
        const skip = form.get('skipTheLine');
        if (skip !== 'true' && skip !== 'false')
          throw httpError('invalid_field', { field: 'skipTheLine', oneOf: ['true', 'false'] });
        await api.submitPullRequest({ ...body, skipTheLine: skip === 'true' });
      }
    }
    return `${queuePath(queue)}/prs/${number}`;
  };

  for (const action of PR_ACTIONS) {
    scope.post(
      `/queues/:queueId/prs/:number/${action}`,
      signedIn(async (request, reply, session) => reply.redirect(await act(session, request, action), 303)),
    );
    // Opened (a reload after a refused form), the action's address leads back to the PR.
    scope.get(
      `/queues/:queueId/prs/:number/${action}`,
      signedIn((request, reply, session) => {
        const params = request.params as Params;
        return reply.redirect(
          `${queuePath(queueById(engine, session.org, params.queueId))}/prs/${numberOf(params.number)}`,
          303,
        );
      }),
    );
  }
}
