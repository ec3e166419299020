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
 *   with write access; the answer goes in Greenline's comment on the PR.
 * - `check_suite` / `check_run` / `status` on a test branch's SHA: a commit status of its run, as setCommitStatus.
 * - `push` to a queue's target branch: the target moved (the engine tells its own merges from other pushes).
 * - `installation` / `installation_repositories`: the installation ids are looked up again.
 * - anything else is acknowledged and ignored.
 */
import { Webhooks, type EmitterWebhookEvent } from '@octokit/webhooks';
import type { Engine, QueueKey } from '../../engine.js';
import { EngineError } from '../../model/errors.js';
import { commandAnswerText, type CommandAnswerText } from '../../model/texts.js';
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
import { parseCommand } from './commands.js';
import type { GitHubHost } from './githubHost.js';
import { hasPullRequestTag } from '../../../machines/index.js';

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

const WRITE_PERMISSIONS = new Set(['admin', 'maintain', 'write']);

interface RepositoryPayload {
  name: string;
  owner: { login: string };
}

export class GitHubWebhookReceiver {
  private readonly webhooks: Webhooks;
  private readonly runner: DeliveryRunner;
  /** The `greenline` check run on each queued PR's head (checkRuns.ts). */
  readonly checkRuns: CheckRunPublisher;

  constructor(
    private readonly engine: Engine,
    private readonly github: GitHubApp,
    private readonly host: GitHubHost,
    secret: string,
    /** The host name queues of this GitHub use in `repo.host` (github.com, or the Enterprise Server's name). */
    private readonly hostName: string,
    /** Where failures of deliveries applied in the background are reported. */
    onError: (message: string, error: unknown) => void = (message, error) => console.error(`greenline: ${message}:`, error),
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
    this.webhooks.on('pull_request', (event) => this.pullRequest(event));
    this.webhooks.on('issue_comment.created', (event) => this.issueComment(event));
    this.webhooks.on('check_suite.completed', (event) => {
      const suite = event.payload.check_suite;
      this.status(event.payload.repository, suite.head_sha, suite.app?.name ?? 'check suite', stateOfConclusion(suite.conclusion), suite.url, '');
    });
    this.webhooks.on('check_run', (event) => {
      const run = event.payload.check_run;
      // Greenline's own check run on PR heads is not a CI result; its Re-run button resubmits the PR.
      if (run.name === CHECK_RUN_NAME) return event.payload.action === 'rerequested' ? this.checkRuns.rerequested(this.repoOf(event.payload.repository), run.pull_requests) : undefined;
      const state = run.status === 'completed' ? stateOfConclusion(run.conclusion) : 'pending';
      this.status(event.payload.repository, run.head_sha, run.name, state, run.details_url ?? run.html_url ?? '', run.output?.title ?? '');
    });
    this.webhooks.on('status', (event) => {
      const payload = event.payload;
      this.status(payload.repository, payload.sha, payload.context, payload.state, payload.target_url ?? '', payload.description ?? '');
    });
    this.webhooks.on('push', (event) => {
      const { payload } = event;
      if (!payload.ref.startsWith('refs/heads/') || payload.deleted) return;
      for (const queue of this.queuesFor(payload.repository as RepositoryPayload, payload.ref.slice('refs/heads/'.length))) {
        this.engine.targetPushed({ org: queue.org, repo: queue.repo, branch: queue.branch }, payload.after);
      }
    });
    this.webhooks.on(['installation', 'installation_repositories'], () => this.github.forgetInstallations());
    // A review given or dismissed: a PR waiting as not ready (for approvals) is checked again.
    this.webhooks.on(['pull_request_review.submitted', 'pull_request_review.dismissed'], (event) => {
      const { pull_request: pull, repository } = event.payload;
      for (const queue of this.queuesFor(repository, pull.base.ref)) this.recheckIfWaiting({ org: queue.org, repo: queue.repo, branch: queue.branch }, pull.number);
    });
  }

  async receive(delivery: Delivery): Promise<DeliveryAnswer> {
    if (delivery.signature === undefined || delivery.signature === '') return { status: 401, message: 'missing X-Hub-Signature-256' };
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
    if (payload === null || typeof payload !== 'object') return { status: 400, message: 'the body is not a JSON object' };
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
    await this.webhooks.receive({ id: delivery.id, name: delivery.name, payload: JSON.parse(delivery.body) } as EmitterWebhookEvent);
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

  private pullRequest(event: EmitterWebhookEvent<'pull_request'>): void {
    const { payload } = event;
    const number = payload.pull_request.number;
    for (const queue of this.queuesFor(payload.repository, payload.pull_request.base.ref)) {
      const key: QueueKey = { org: queue.org, repo: queue.repo, branch: queue.branch };
      const queued = this.enqueued(key, number);
      const labelled = queue.settings.labelCommandsEnabled && queue.settings.enqueueingLabel !== '';
      switch (payload.action) {
        case 'closed':
          // Closed by Greenline's own merge (GitHub sends this as the target reaches the PR's head): the merge is
          // under way and the cancel is refused, which is right.
          if (queued !== undefined) this.unlessMerging(() => this.engine.cancelPullRequest(key, number));
          break;
        case 'synchronize':
          // Tested again in its place; a PR being merged goes on with the commits that were tested.
          if (queued !== undefined) this.engine.pullRequestPushed(key, number, payload.pull_request.head.sha);
          break;
        case 'ready_for_review':
        case 'edited':
          // A draft made ready, or a new title or base: a PR waiting as not ready is checked again.
          this.recheckIfWaiting(key, number);
          break;
        case 'labeled':
          if (labelled && payload.label?.name === queue.settings.enqueueingLabel && queued === undefined) this.engine.submitPullRequest(key, number);
          break;
        case 'unlabeled':
          if (labelled && payload.label?.name === queue.settings.enqueueingLabel && queued !== undefined) this.engine.cancelPullRequest(key, number);
          break;
        default:
          break;
      }
    }
  }

  private recheckIfWaiting(key: QueueKey, number: number): void {
    const queued = this.enqueued(key, number);
    if (queued !== undefined && hasPullRequestTag(this.engine.getSubmittedPullRequest(key, number).pr.state, 'notReady')) this.engine.restartTestsOnPullRequest(key, number);
  }

  /** A PR being merged cannot be cancelled (409): its merge goes on, with the commits that were tested. */
  private unlessMerging(change: () => void): void {
    try {
      change();
    } catch (error) {
      if (!(error instanceof EngineError && error.kind === 'conflict')) throw error;
    }
  }

  private async issueComment(event: EmitterWebhookEvent<'issue_comment.created'>): Promise<void> {
    const { payload } = event;
    if (payload.issue.pull_request === undefined || payload.comment.user?.type === 'Bot') return;
    const command = parseCommand(payload.comment.body);
    if (command === undefined) return;
    const repo = this.repoOf(payload.repository);
    const number = payload.issue.number;
    const answer = (text: CommandAnswerText) => this.host.comment(repo, number, commandAnswerText(text));
    if (command.kind === 'invalid') return answer({ kind: 'invalid', message: command.message });
    const octokit = await this.github.forRepo(repo);
    const where = { owner: repo.owner, repo: repo.name };
    const login = payload.comment.user?.login ?? '';
    const { data: permission } = await octokit.rest.repos.getCollaboratorPermissionLevel({ ...where, username: login });
    if (!WRITE_PERMISSIONS.has(permission.permission)) {
      return answer({ kind: 'notAllowed', login, repo });
    }
    const { data: pr } = await octokit.rest.pulls.get({ ...where, pull_number: number });
    const queues = this.queuesFor(payload.repository, pr.base.ref).filter((queue) => queue.settings.commandsEnabled);
    if (queues.length === 0) return answer({ kind: 'noQueue', branch: pr.base.ref });
    for (const queue of queues) {
      const key: QueueKey = { org: queue.org, repo: queue.repo, branch: queue.branch };
      if (command.kind === 'merge') {
        const options = { noBatch: command.noBatch, ...(command.priority === undefined ? {} : { priority: command.priority }) };
        this.engine.submitPullRequest(key, number, options);
        await answer({ kind: 'submitted', number, branch: queue.branch, login });
      } else if (this.enqueued(key, number) === undefined) {
        await answer({ kind: 'notQueued', number, branch: queue.branch });
      } else {
        try {
          this.engine.cancelPullRequest(key, number);
        } catch (error) {
          if (!(error instanceof EngineError && error.kind === 'conflict')) throw error;
          await answer({ kind: 'beingMerged', number });
          continue;
        }
        await answer({ kind: 'cancelled', number, login });
      }
    }
  }

  /** A result on a test branch's SHA; results on any other commit are not the queue's business. */
  private status(repository: RepositoryPayload, sha: string, context: string, state: CommitState, url: string, description: string): void {
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
