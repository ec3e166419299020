/**
 * The `greenline` check run on each queued PR's head (`checks: write`), kept up to date as the PR moves: every commit
 * to a queue marks it (this process's inputs and, on PostgreSQL, what another process committed, heard: the PR moves
 * whichever process took its input), and at most once per `throttleMs` (default 10 s) the marked queues' PRs are read and each
 * check run whose text changed is written, so a busy queue stays well inside GitHub's limits of writes. A PR that
 * left the queue gets its last write, with why (checkRunSummary.ts). The commit status `greenline` stays as it was
 * (statusCheck effects).
 *
 * A write goes through the queue's outbox like the engine's other GitHub effects (a `checkRun` effect in the PR's own
 * slot: engine/runtime/outsideEffects.ts), done by the GitHub host (checkRunWrites.ts), which finds the check run
 * again by its external id (the PR's queue entry): a write is retried with the outbox's backoff, survives a crash,
 * and done twice makes one check run. While a PR's write waits in the outbox its next one waits here (the queue stays
 * marked), so the latest text is the one written last. At start every queue is marked: what changed while no pass
 * ran (a crash between a change and its pass) is written then.
 */
import type { Engine, QueueKey } from '../../engine.js';
import type { QueueRecord, RepoRef } from '../../model/queues.js';
import { isEnqueued } from '../../../machines/vocabulary.js';
import type { GitHubApp } from './client.js';
import { checkRunOutput } from './checkRunSummary.js';

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
  text: string;
}

const TIMER = 'github:check-runs';
/** At start, the PRs that left the queue this recently get their last write again (it may not have been made). */
const RECENT_MS = 60 * 60_000;

export class CheckRunPublisher {
  private readonly dirty = new Set<string>();
  /** Per queue id: the PRs whose check run this process keeps, and what it last wrote. */
  private readonly published = new Map<string, Map<number, Published>>();
  private unsubscribe: (() => void) | undefined;
  private flushing: Promise<void> | undefined;
  private scheduled = false;

  /** `_github`: unused since the writes go through the outbox and the GitHub host (kept for its callers). */
  constructor(
    private readonly engine: Engine,
    _github: GitHubApp,
    private readonly options: CheckRunOptions,
  ) {}

  /** Follows every queue's commits, and marks every queue now: its check runs are written at the first pass. */
  start(): void {
    if (this.unsubscribe !== undefined) return;
    this.unsubscribe = this.engine.onCommit((queueId) => this.mark(queueId));
    for (const queueId of this.engine.queueIds()) this.mark(queueId);
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
        if (queue.branch === pull.base.ref)
          this.engine.submitPullRequest({ org: queue.org, repo: queue.repo, branch: queue.branch }, pull.number);
      }
    }
  }

  private queueOf(queueId: string): QueueRecord | undefined {
    const org = this.engine.queueOrg(queueId);
    return org === undefined ? undefined : this.engine.listQueues(org).find((queue) => queue.id === queueId);
  }

  private async publishQueue(queueId: string): Promise<void> {
    // Only the queue's driver writes its check runs: with several processes, each would put the same text in turn
    // (each keeps what it published), and GitHub would be written to once per process for one change.
    if (!this.engine.drives(queueId)) return;
    const record = this.queueOf(queueId);
    if (record === undefined || record.repo.host !== this.options.hostName) return;
    const key: QueueKey = { org: record.org, repo: record.repo, branch: record.branch };
    const { queue, enqueued } = this.engine.getQueue(key);
    const first = !this.published.has(queueId);
    const kept = this.published.get(queueId) ?? new Map<number, Published>();
    this.published.set(queueId, kept);
    if (!queue.settings.statusCheckEnabled) return;
    const estimates = this.engine.estimates(key);
    const lineup = queue.runtime.lineup;
    const base = this.options.publicUrl?.()?.replace(/\/+$/, '');
    const now = this.engine.scheduler.now();
    const present = new Set(enqueued.map((pr) => pr.number));
    const gone = [...kept.keys()]
      .filter((number) => !present.has(number))
      .map((number) => this.engine.getSubmittedPullRequest(key, number).pr);
    // The first pass of this process: the PRs that left lately may have left after the last pass of the one before.
    if (first)
      gone.push(
        ...this.engine
          .listPullRequests(key, { since: now - RECENT_MS })
          .filter((pr) => !isEnqueued(pr.state) && Date.parse(pr.stateChangedAt) >= now - RECENT_MS),
      );
    let waiting = false;
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
        ...(base === undefined
          ? {}
          : { dashboardUrl: `${base}/queues/${encodeURIComponent(queue.id)}/prs/${pr.number}` }),
        now,
      });
      const text = JSON.stringify(output);
      const previous = kept.get(pr.number);
      if (previous?.sha === pr.sha && previous.text === text) {
        if (!isEnqueued(pr.state)) kept.delete(pr.number);
        continue;
      }
      const outcome = this.engine.putEffect(queueId, `checkRun:${pr.number}`, {
        kind: 'checkRun',
        repo: record.repo,
        number: pr.number,
        sha: pr.sha,
        externalId: pr.id,
        check: { ...output, ...(output.conclusion === undefined ? {} : { completedAt: new Date(now).toISOString() }) },
      });
      if (outcome === 'busy') waiting = true;
      if (outcome !== 'put') continue;
      if (isEnqueued(pr.state)) kept.set(pr.number, { sha: pr.sha, text });
      else kept.delete(pr.number);
    }
    // A write still in the outbox: this one is put at a later pass.
    if (waiting) this.mark(queueId);
  }
}
