/**
 * The `greenline` check run on each queued PR's head (`checks: write`), kept up to date as the PR moves: every input
 * to a queue marks it, and at most once per `throttleMs` (default 10 s) the marked queues' PRs are read and each
 * check run whose text changed is updated (one request each), so a busy queue stays well inside GitHub's limits of
 * writes. A PR that left the queue gets its last update, with why (checkRunSummary.ts). A check run that could not
 * be written is tried again at the next pass. The commit status `greenline` stays as it was (statusCheck effects).
 *
 * After a restart the check run of a head is found again through `GET .../commits/{sha}/check-runs?check_name=`.
 */
import type { Engine, QueueKey } from '../../engine.js';
import type { QueueRecord, RepoRef } from '../../model/queues.js';
import { isEnqueued } from '../../../machines/vocabulary.js';
import type { GitHubApp } from './client.js';
import { CHECK_RUN_NAME, checkRunOutput, type CheckRunOutput } from './checkRunSummary.js';

export interface CheckRunOptions {
  /** The host name of this GitHub's queues (`repo.host`). */
  hostName: string;
  /** The service's public address, for the dashboard link (absent: no link). */
  publicUrl?: () => string | undefined;
  throttleMs?: number;
  onError: (message: string, error: unknown) => void;
}

interface Published {
  sha: string;
  checkRunId: number;
  text: string;
  completed: boolean;
}

const TIMER = 'github:check-runs';

export class CheckRunPublisher {
  private readonly dirty = new Set<string>();
  /** Per queue id: the PRs whose check run this process keeps, and what it last wrote. */
  private readonly published = new Map<string, Map<number, Published>>();
  private unsubscribe: (() => void) | undefined;
  private flushing: Promise<void> | undefined;
  private scheduled = false;

  constructor(
    private readonly engine: Engine,
    private readonly github: GitHubApp,
    private readonly options: CheckRunOptions,
  ) {}

  start(): void {
    this.unsubscribe ??= this.engine.onInput((queueId) => this.mark(queueId));
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.engine.scheduler.cancel(TIMER);
    this.scheduled = false;
  }

  /** Resolves once no pass is under way. */
  async settle(): Promise<void> {
    while (this.flushing !== undefined) await this.flushing;
  }

  /** The queue changed: its check runs are brought up to date at the next pass. */
  mark(queueId: string): void {
    this.dirty.add(queueId);
    if (this.scheduled || this.unsubscribe === undefined) return;
    this.scheduled = true;
    const at = this.engine.scheduler.now() + (this.options.throttleMs ?? 10_000);
    this.engine.scheduler.schedule(TIMER, at, () => {
      this.scheduled = false;
      this.flushing ??= this.flush().finally(() => {
        this.flushing = undefined;
      });
    });
  }

  /** Brings the check runs of the marked queues up to date now. */
  async flush(): Promise<void> {
    const queues = [...this.dirty];
    this.dirty.clear();
    for (const queueId of queues) {
      try {
        await this.publishQueue(queueId);
      } catch (error) {
        this.options.onError(`the check runs of queue ${queueId} could not be written; trying again`, error);
        this.mark(queueId);
      }
    }
  }

  /**
   * `check_run.rerequested` (the check's Re-run button): the PR is submitted again to the queues of its base branch on
   * this repository (a PR still queued keeps its place: submitting it again changes nothing but its options).
   */
  rerequested(repo: RepoRef, pulls: readonly { number: number; base: { ref: string } }[]): void {
    for (const pull of pulls) {
      for (const queue of this.engine.queuesOfRepo(repo)) {
        if (queue.branch === pull.base.ref) this.engine.submitPullRequest({ org: queue.org, repo: queue.repo, branch: queue.branch }, pull.number);
      }
    }
  }

  private queueOf(queueId: string): QueueRecord | undefined {
    const org = this.engine.queueOrg(queueId);
    return org === undefined ? undefined : this.engine.listQueues(org).find((queue) => queue.id === queueId);
  }

  private async publishQueue(queueId: string): Promise<void> {
    const record = this.queueOf(queueId);
    if (record === undefined || record.repo.host !== this.options.hostName) return;
    const key: QueueKey = { org: record.org, repo: record.repo, branch: record.branch };
    const { queue, enqueued } = this.engine.getQueue(key);
    const kept = this.published.get(queueId) ?? new Map<number, Published>();
    this.published.set(queueId, kept);
    if (!queue.settings.statusCheckEnabled) return;
    const estimates = this.engine.estimates(key);
    const lineup = queue.runtime.lineup;
    const base = this.options.publicUrl?.()?.replace(/\/+$/, '');
    const now = this.engine.scheduler.now();
    const present = new Set(enqueued.map((pr) => pr.number));
    const gone = [...kept.keys()].filter((number) => !present.has(number)).map((number) => this.engine.getSubmittedPullRequest(key, number).pr);
    let failed: unknown;
    for (const pr of [...enqueued, ...gone]) {
      if (pr.sha === '') continue;
      const index = lineup.indexOf(pr.number);
      const run = pr.runId === null ? undefined : this.engine.testRun(queueId, pr.runId);
      const estimate = estimates.get(pr.number);
      const output = checkRunOutput({
        pr,
        targetBranch: queue.branch,
        ...(index === -1 ? {} : { position: index + 1 }),
        ready: lineup.length,
        ahead: index === -1 ? [] : lineup.slice(0, index),
        ...(run === undefined ? {} : { run }),
        ...(estimate === undefined ? {} : { estimate }),
        ...(base === undefined ? {} : { dashboardUrl: `${base}/queues/${encodeURIComponent(queue.id)}/prs/${pr.number}` }),
        now,
      });
      try {
        await this.write(key, pr.number, pr.id, pr.sha, output, kept);
        if (!isEnqueued(pr.state)) kept.delete(pr.number);
      } catch (error) {
        failed ??= error;
      }
    }
    if (failed !== undefined) throw failed;
  }

  private async write(key: QueueKey, number: number, entryId: string, sha: string, output: CheckRunOutput, kept: Map<number, Published>): Promise<void> {
    const text = JSON.stringify(output);
    const previous = kept.get(number);
    if (previous?.sha === sha && previous.text === text) return;
    const octokit = await this.github.forRepo(key.repo);
    const where = { owner: key.repo.owner, repo: key.repo.name };
    const fields = {
      status: output.status,
      ...(output.conclusion === undefined ? {} : { conclusion: output.conclusion, completed_at: new Date(this.engine.scheduler.now()).toISOString() }),
      external_id: entryId,
      output: { title: output.title, summary: output.summary.slice(0, 65_000) },
    };
    let found = previous?.sha === sha ? { id: previous.checkRunId, completed: previous.completed } : undefined;
    if (found === undefined) {
      const { data } = await octokit.rest.checks.listForRef({ ...where, ref: sha, check_name: CHECK_RUN_NAME, filter: 'latest', per_page: 1 });
      const latest = data.check_runs[0];
      if (latest !== undefined) found = { id: Number(latest.id), completed: latest.status === 'completed' };
    }
    let id: number;
    // A completed check run stays completed: a PR queued again (re-run) gets a new one.
    if (found === undefined || (found.completed && output.status !== 'completed')) {
      const { data } = await octokit.rest.checks.create({ ...where, name: CHECK_RUN_NAME, head_sha: sha, ...fields });
      id = Number(data.id);
    } else {
      id = found.id;
      await octokit.rest.checks.update({ ...where, check_run_id: id, ...fields });
    }
    kept.set(number, { sha, checkRunId: id, text, completed: output.status === 'completed' });
  }
}
