/**
 * GitHub's webhook deliveries turned into engine inputs. `@octokit/webhooks` checks the signature (HMAC with the
 * App's webhook secret) and types the payloads. A delivery is stored (engine/deliveries.ts: its id, so a redelivery
 * is applied once, and its body in the inbox) and answered 202 at once; the DeliveryRunner applies it right after,
 * and again with backoff while what it needs is down (GitHub's API for a command, the store), so GitHub's 10 s for
 * a delivery never depend on GitHub's API.
 *
 * - `pull_request`: closed leaves the queue; synchronize (its head moved) on a queued PR is the engine input
 *   `prPushed`: it keeps its place, is checked again, and results for the old head no longer count;
 *   ready_for_review / edited on a PR waiting as not ready checks it again; labeled /
 *   unlabeled with the queue's `enqueueingLabel` (when `labelCommandsEnabled`) submits / cancels.
 * - `pull_request_review` submitted / dismissed: a PR waiting as not ready (for approvals) is checked again.
 * - `issue_comment` created on a PR: `/greenline merge` and `/greenline cancel` (when `commandsEnabled`), by users
 *   with write access; the answer goes in Greenline's comment on the PR (commentCommands.ts).
 * - `check_suite` / `check_run` / `status` on a test branch's SHA: a commit status of its run, as setCommitStatus.
 * - `push` to a queue's target branch: the target moved (the engine tells its own merges from other pushes).
 * - `installation` / `installation_repositories`: the installation ids are looked up again.
 * - anything else is acknowledged and ignored.
 */
import { Webhooks, type EmitterWebhookEvent } from '@octokit/webhooks';
import type { Engine, QueueKey } from '../../engine.js';
import { EngineError } from '../../model/errors.js';
import type { QueueRecord, RepoRef } from '../../model/queues.js';
import type { CommitState } from '../../../machines/testRun.js';
import { stateOfConclusion } from './conclusions.js';
import { CheckRunPublisher } from './checkRuns.js';
import { CHECK_RUN_NAME } from './checkRunSummary.js';

export { stateOfConclusion } from './conclusions.js';
import { isEnqueued } from '../../../machines/vocabulary.js';
import type { GitHubApp } from './client.js';
import type { ReceivedDelivery } from '../../deliveries.js';
import { DeliveryRunner } from './deliveryRunner.js';
import { actOnComment } from './commentCommands.js';
import { onPullRequest, recheckIfWaiting, type ReceiverParts, type RepositoryPayload } from './pullRequestEvents.js';
import type { GitHubHost } from './githubHost.js';

export interface Delivery {
  id: string | undefined;
  name: string | undefined;
  signature: string | undefined;
  /** The body exactly as received (the signature is over these bytes). */
  body: string;
}

export interface DeliveryAnswer {
  status: 200 | 202 | 400 | 401;
  message: string;
}

export class GitHubWebhookReceiver {
  private readonly webhooks: Webhooks;
  private readonly runner: DeliveryRunner;
  /** The `greenline` check run on each queued PR's head (checkRuns.ts). */
  readonly checkRuns: CheckRunPublisher;

  constructor(
    private readonly engine: Engine,
    private readonly github: GitHubApp,
    host: GitHubHost,
    secret: string,
    /** The host name queues of this GitHub use in `repo.host` (github.com, or the Enterprise Server's name). */
    private readonly hostName: string,
    /** Where failures of deliveries applied in the background are reported. */
    onError: (message: string, error: unknown) => void = (message, error) =>
      console.error(`greenline: ${message}:`, error),
    /** The `greenline` check runs: the dashboard's address for their links, and how often they are written. */
    checkRunOptions: { publicUrl?: () => string | undefined; throttleMs?: number } = {},
  ) {
    this.checkRuns = new CheckRunPublisher(engine, github, { hostName, onError, ...checkRunOptions });
    this.webhooks = new Webhooks({ secret });
    this.runner = new DeliveryRunner({
      inbox: engine.webhookInbox,
      scheduler: engine.scheduler,
      apply: (delivery) => this.apply(delivery),
      onError,
    });
    const parts: ReceiverParts = {
      engine,
      github,
      host,
      repoOf: (repository) => this.repoOf(repository),
      queuesFor: (repository, branch) => this.queuesFor(repository, branch),
      enqueued: (key, number) => this.enqueued(key, number),
    };
    this.webhooks.on('pull_request', (event) => onPullRequest(event, parts));
    this.webhooks.on('issue_comment.created', (event) => actOnComment(event, parts));
    this.webhooks.on('check_suite.completed', (event) => {
      const suite = event.payload.check_suite;
      this.status(
        event.payload.repository,
        suite.head_sha,
        suite.app?.name ?? 'check suite',
        stateOfConclusion(suite.conclusion),
        suite.url,
        '',
      );
    });
    this.webhooks.on('check_run', (event) => {
      const run = event.payload.check_run;
      // Greenline's own check run on PR heads is not a CI result; its Re-run button resubmits the PR.
      if (run.name === CHECK_RUN_NAME)
        return event.payload.action === 'rerequested'
          ? this.checkRuns.rerequested(this.repoOf(event.payload.repository), run.pull_requests)
          : undefined;
      const state = run.status === 'completed' ? stateOfConclusion(run.conclusion) : 'pending';
      this.status(
        event.payload.repository,
        run.head_sha,
        run.name,
        state,
        run.details_url ?? run.html_url ?? '',
        run.output?.title ?? '',
      );
    });
    this.webhooks.on('status', (event) => {
      const payload = event.payload;
      this.status(
        payload.repository,
        payload.sha,
        payload.context,
        payload.state,
        payload.target_url ?? '',
        payload.description ?? '',
      );
    });
    this.webhooks.on('push', (event) => {
      const { payload } = event;
      if (!payload.ref.startsWith('refs/heads/') || payload.deleted) return;
      for (const queue of this.queuesFor(
        payload.repository as RepositoryPayload,
        payload.ref.slice('refs/heads/'.length),
      )) {
        this.engine.targetPushed({ org: queue.org, repo: queue.repo, branch: queue.branch }, payload.after);
      }
    });
    this.webhooks.on(['installation', 'installation_repositories'], () => this.github.forgetInstallations());
    // A review given or dismissed: a PR waiting as not ready (for approvals) is checked again.
    this.webhooks.on(['pull_request_review.submitted', 'pull_request_review.dismissed'], (event) => {
      const { pull_request: pull, repository } = event.payload;
      for (const queue of this.queuesFor(repository, pull.base.ref))
        recheckIfWaiting(parts, { org: queue.org, repo: queue.repo, branch: queue.branch }, pull.number);
    });
  }

  async receive(delivery: Delivery): Promise<DeliveryAnswer> {
    if (delivery.signature === undefined || delivery.signature === '')
      return { status: 401, message: 'missing X-Hub-Signature-256' };
    let valid: boolean;
    try {
      valid = await this.webhooks.verify(delivery.body, delivery.signature);
    } catch {
      valid = false;
    }
    if (!valid) return { status: 401, message: 'the signature does not match the webhook secret' };
    if (delivery.id === undefined || delivery.id === '' || delivery.name === undefined || delivery.name === '') {
      return { status: 400, message: 'missing X-GitHub-Delivery or X-GitHub-Event' };
    }
    let payload: unknown;
    try {
      payload = JSON.parse(delivery.body);
    } catch {
      return { status: 400, message: 'the body is not JSON (set the webhook content type to application/json)' };
    }
    if (payload === null || typeof payload !== 'object')
      return { status: 400, message: 'the body is not a JSON object' };
    // Stored, then answered: the work (which may need GitHub's API) is done after, by the runner, with retries. When
    // the store is down this throws, and the answer is a 503 with retry-after.
    if (!this.engine.webhookInbox.accept({ id: delivery.id, name: delivery.name, body: delivery.body })) {
      return { status: 200, message: `delivery ${delivery.id} was accepted already` };
    }
    this.runner.kick();
    // Each delivery forgets at most a batch of ids past their retention: the record stays bounded as deliveries come.
    // Accepted already: a failure to prune is reported, not answered (the next delivery prunes again).
    try {
      this.engine.pruneDeliveries();
    } catch (error) {
      console.error('greenline: pruning webhook delivery ids failed:', error);
    }
    return { status: 202, message: 'accepted' };
  }

  /** Starts applying accepted deliveries, those left from before first (call once the engine runs). */
  start(): void {
    this.runner.start();
    this.checkRuns.start();
  }

  /** Stops applying deliveries (what is left stays in the inbox for the next start). */
  stop(): void {
    this.runner.stop();
    this.checkRuns.stop();
  }

  /** Resolves once no delivery is being applied (retry timers aside). */
  async settle(): Promise<void> {
    await this.runner.settle();
    await this.checkRuns.settle();
  }

  /** Applies one accepted delivery: its handlers, which may call GitHub's API. */
  private async apply(delivery: ReceivedDelivery): Promise<void> {
    await this.webhooks.receive({
      id: delivery.id,
      name: delivery.name,
      payload: JSON.parse(delivery.body),
    } as EmitterWebhookEvent);
  }

  private repoOf(repository: RepositoryPayload): RepoRef {
    return { host: this.hostName, owner: repository.owner.login, name: repository.name };
  }

  private queuesFor(repository: RepositoryPayload, branch: string): QueueRecord[] {
    return this.engine.queuesOfRepo(this.repoOf(repository)).filter((queue) => queue.branch === branch);
  }

  private enqueued(key: QueueKey, number: number): { priorityValue: number; noBatch: boolean } | undefined {
    try {
      const { pr } = this.engine.getSubmittedPullRequest(key, number);
      return isEnqueued(pr.state) ? pr : undefined;
    } catch (error) {
      if (error instanceof EngineError && error.kind === 'not_found') return undefined;
      throw error;
    }
  }

  /** A result on a test branch's SHA; results on any other commit are not the queue's business. */
  private status(
    repository: RepositoryPayload,
    sha: string,
    context: string,
    state: CommitState,
    url: string,
    description: string,
  ): void {
    const repo = this.repoOf(repository);
    const orgs = new Set(this.engine.queuesOfRepo(repo).map((queue) => queue.org));
    for (const org of orgs) {
      try {
        this.engine.setCommitStatus(org, { repo, sha, context, state, url, description });
      } catch (error) {
        if (!(error instanceof EngineError && error.kind === 'not_found')) throw error;
      }
    }
  }
}
