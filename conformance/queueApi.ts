/**
 * One queue of the server under test, driven and observed through the API only: the calls a scenario makes and the
 * waits on what it observes. A wait polls until what it reads holds (the server works on its own: the git host
 * checks a PR, the outbox merges), bounded by `waitMs`, a budget for a server that is stuck, not a speed requirement.
 */
import type { Answer, ApiClient } from './client.js';

export const REPO = { host: 'github.com', owner: 'conformance', name: 'widgets' };

export interface PrView {
  id?: string;
  state: string;
  prSha: string;
  testRunId?: string;
  reason?: string;
  isCurrentlySubmittedToQueue?: boolean;
  mergedSha?: string;
}

export interface QueueView {
  state: string;
  mode: string;
  requiredStatuses: string[];
  enqueuedPullRequests?: { prNumber: number; state?: string }[];
}

export interface RunView {
  status?: string;
  createdAt?: string;
  testBranchSha: string;
  testedPullRequests: { prNumber: number }[];
  basePullRequests?: number[];
  dependentPrs?: number[];
  requiredStatuses: string[];
}

/** A check that failed: what was expected and seen; the calls are the scenario's (printed as curl). */
export class ConformanceFailure extends Error {}

export class QueueApi {
  constructor(
    readonly client: ApiClient,
    readonly branch: string,
    readonly waitMs: number,
  ) {}

  private body(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { repo: REPO, targetBranch: this.branch, ...extra };
  }

  /** A call that must answer 200. */
  async ok<T = Record<string, unknown>>(path: string, extra: Record<string, unknown> = {}): Promise<T> {
    const answer = await this.client.post<T>(path, this.body(extra));
    if (answer.status !== 200)
      throw new ConformanceFailure(`${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  }

  call<T = Record<string, unknown>>(path: string, extra: Record<string, unknown> = {}): Promise<Answer<T>> {
    return this.client.post<T>(path, this.body(extra));
  }

  create(settings: Record<string, unknown> = {}): Promise<unknown> {
    return this.ok('createQueue', settings);
  }

  update(patch: Record<string, unknown>): Promise<QueueView> {
    return this.ok<QueueView>('updateQueue', patch);
  }

  queue(): Promise<QueueView> {
    return this.ok<QueueView>('getQueue');
  }

  pr(number: number): Promise<PrView> {
    return this.ok<PrView>('getSubmittedPullRequest', { pr: { number } });
  }

  run(testRunId: string): Promise<RunView> {
    return this.ok<RunView>('getMergeQueueTestingDetails', { testRunId });
  }

  /** Submits PR `number` and, in a parallel queue, gives it impacted targets (`targets`: at once). */
  async submit(number: number): Promise<void> {
    await this.ok('submitPullRequest', { pr: { number } });
  }

  /** Once the git host has told the server the PR's head (it answers on its own time: `prSha` is empty until then). */
  async targets(number: number): Promise<void> {
    const pr = await this.until(
      `PR #${number}'s head SHA`,
      () => this.pr(number),
      (view) => view.prSha !== '',
    );
    await this.ok('setImpactedTargets', { pr: { number, sha: pr.prSha }, impactedTargets: [`target-${number}`] });
  }

  /** Once the run's test branch is built (its SHA is empty until the git host has built it). */
  async status(testRunId: string, context: string, state: string): Promise<void> {
    const built = (view: RunView) => view.testBranchSha !== '';
    const run = await this.until(`run ${testRunId}'s test branch`, () => this.run(testRunId), built);
    const answer = await this.client.post('setCommitStatus', { repo: REPO, sha: run.testBranchSha, context, state });
    if (answer.status !== 200)
      throw new ConformanceFailure(`setCommitStatus answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  }

  /** Polls `read` until `check` holds; fails with the last value read after `waitMs`. */
  async until<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
    const deadline = Date.now() + this.waitMs;
    let delay = 5;
    for (;;) {
      const value = await read();
      if (check(value)) return value;
      if (Date.now() > deadline)
        throw new ConformanceFailure(`${what}: still ${JSON.stringify(value)} after ${this.waitMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 100);
    }
  }

  waitPr(number: number, state: string): Promise<PrView> {
    return this.until(
      `PR #${number} should be ${state}`,
      () => this.pr(number),
      (pr) => pr.state === state,
    );
  }

  waitQueue(state: string): Promise<QueueView> {
    return this.until(
      `the queue should be ${state}`,
      () => this.queue(),
      (queue) => queue.state === state,
    );
  }

  waitRun(testRunId: string, status: string): Promise<RunView> {
    return this.until(
      `run ${testRunId} should be ${status}`,
      () => this.run(testRunId),
      (run) => run.status === status,
    );
  }
}
