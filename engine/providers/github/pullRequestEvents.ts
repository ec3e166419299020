/**
 * What a pull request's own events do in its queues (GitHub's `pull_request`): closed leaves the queue, synchronize
 * (its head moved) is `prPushed`, ready_for_review / edited checks a PR waiting as not ready again, and the queue's
 * `enqueueingLabel` added or removed submits or cancels it (when `labelCommandsEnabled`). Also the parts of the
 * webhook receiver its event handlers share (webhookReceiver.ts, commentCommands.ts).
 */
import type { EmitterWebhookEvent } from '@octokit/webhooks';
import { hasPullRequestTag } from '../../../machines/index.js';
import type { Engine, QueueKey } from '../../engine.js';
import { EngineError } from '../../model/errors.js';
import type { QueueRecord, RepoRef } from '../../model/queues.js';
import type { GitHubApp } from './client.js';
import type { GitHubHost } from './githubHost.js';

export interface RepositoryPayload {
  name: string;
  owner: { login: string };
}

/** What the receiver's event handlers share: the engine, GitHub, and the receiver's lookups. */
export interface ReceiverParts {
  engine: Engine;
  github: GitHubApp;
  host: GitHubHost;
  repoOf: (repository: RepositoryPayload) => RepoRef;
  /** The queues of the repository's branch. */
  queuesFor: (repository: RepositoryPayload, branch: string) => QueueRecord[];
  /** The PR as queued, or undefined when it is not in the queue. */
  enqueued: (key: QueueKey, number: number) => object | undefined;
}

export function onPullRequest(event: EmitterWebhookEvent<'pull_request'>, parts: ReceiverParts): void {
  const { engine } = parts;
  const { payload } = event;
  const number = payload.pull_request.number;
  for (const queue of parts.queuesFor(payload.repository, payload.pull_request.base.ref)) {
    const key: QueueKey = { org: queue.org, repo: queue.repo, branch: queue.branch };
    const queued = parts.enqueued(key, number);
    const labelled = queue.settings.labelCommandsEnabled && queue.settings.enqueueingLabel !== '';
    switch (payload.action) {
      case 'closed':
        // Closed by Greenline's own merge (GitHub sends this as the target reaches the PR's head): the merge is
        // under way and the cancel is refused, which is right.
        if (queued !== undefined) unlessMerging(() => engine.cancelPullRequest(key, number));
        break;
      case 'synchronize':
        // Tested again in its place; a PR being merged goes on with the commits that were tested.
        if (queued !== undefined) engine.pullRequestPushed(key, number, payload.pull_request.head.sha);
        break;
      case 'ready_for_review':
      case 'edited':
        // A draft made ready, or a new title or base: a PR waiting as not ready is checked again.
        recheckIfWaiting(parts, key, number);
        break;
      case 'labeled':
        if (labelled && payload.label?.name === queue.settings.enqueueingLabel && queued === undefined)
          engine.submitPullRequest(key, number);
        break;
      case 'unlabeled':
        if (labelled && payload.label?.name === queue.settings.enqueueingLabel && queued !== undefined)
          engine.cancelPullRequest(key, number);
        break;
      default:
        break;
    }
  }
}

export function recheckIfWaiting(parts: ReceiverParts, key: QueueKey, number: number): void {
  const { engine } = parts;
  const queued = parts.enqueued(key, number);
  if (queued !== undefined && hasPullRequestTag(engine.getSubmittedPullRequest(key, number).pr.state, 'notReady'))
    engine.restartTestsOnPullRequest(key, number);
}

/** A PR being merged cannot be cancelled (409): its merge goes on, with the commits that were tested. */
function unlessMerging(change: () => void): void {
  try {
    change();
  } catch (error) {
    if (!(error instanceof EngineError && error.kind === 'conflict')) throw error;
  }
}
