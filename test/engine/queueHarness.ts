/** An engine on a virtual clock and an in-memory store, with CI played by the test: it reports statuses on runs. */
import { Engine, type QueueKey } from '../../engine/engine.js';
import type { QueuePatch } from '../../engine/model/queues.js';
import type { PullRequestRecord } from '../../engine/model/pullRequests.js';
import type { TestRunRecord } from '../../engine/model/testRuns.js';
import { simSha } from '../../engine/providers/sim/simGitHost.js';
import type { GitHost } from '../../engine/providers/types.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import type { Store } from '../../engine/store/store.js';

export const KEY: QueueKey = {
  org: 'acme',
  repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
  branch: 'main',
};

export class QueueHarness {
  readonly scheduler = new VirtualScheduler(Date.parse('2026-11-22T00:00:00.000Z'));
  engine: Engine;
  queueId = '';
  /** Crashes restored from so far. */
  restores = 0;

  constructor(
    readonly store: Store = createMemoryStore(),
    readonly gitHost?: GitHost,
  ) {
    this.engine = this.boot();
  }

  boot(): Engine {
    const host = this.gitHost === undefined ? {} : { gitHost: this.gitHost };
    this.engine = new Engine(this.store, {
      scheduler: this.scheduler,
      ...host,
      onError: (message, error) => {
        throw new Error(`${message}: ${String(error)}`);
      },
    });
    this.engine.start();
    return this.engine;
  }

  /**
   * Arms a crash: the engine stops right after its `after`-th committed input (counted from now) and a new one is
   * restored from the store at once, before the virtual clock moves on (a crash without downtime: deadlines that
   * would pass during a downtime fire late, at the restore, and their records say so). The function returned waits
   * for the restored engine's effects; call it after each step.
   */
  crashAfter(after: number | undefined): () => Promise<void> {
    let transactions = 0;
    let crashed = false;
    const watch = () =>
      this.engine.onInput(() => {
        if (crashed || ++transactions !== after) return;
        crashed = true;
        this.restores++;
        this.engine.stop();
        this.boot();
      });
    watch();
    return async () => {
      if (crashed) await this.engine.settle();
    };
  }

  /** Drops the engine as a crash would (nothing more of it runs) and restores a new one from the store. */
  async crashAndRestore(): Promise<void> {
    this.restores++;
    this.engine.stop();
    this.boot();
    await this.engine.settle();
  }

  async create(patch: QueuePatch = {}): Promise<void> {
    this.queueId = this.engine.createQueue(KEY, { requiredStatuses: ['ci'], ...patch }).id;
    await this.engine.settle();
  }

  async submit(...numbers: number[]): Promise<void> {
    for (const number of numbers) this.engine.submitPullRequest(KEY, number);
    await this.engine.settle();
  }

  /** The simulated host's head SHA of PR `number`. */
  static headOf(number: number): string {
    return simSha('pr', `${KEY.repo.host}/${KEY.repo.owner}/${KEY.repo.name}`, number);
  }

  /** Uploads impacted targets for PR `number` (at its simulated head unless `sha` says otherwise). */
  async targets(number: number, targets: readonly string[] | 'ALL', sha = QueueHarness.headOf(number)): Promise<void> {
    this.engine.setImpactedTargets(KEY, { number, sha }, targets);
    await this.engine.settle();
  }

  async update(patch: QueuePatch): Promise<void> {
    this.engine.updateQueue(KEY, patch);
    await this.engine.settle();
  }

  pr(number: number): PullRequestRecord {
    return this.engine.getSubmittedPullRequest(KEY, number).pr;
  }

  states(...numbers: number[]): string[] {
    return numbers.map((number) => this.pr(number).state);
  }

  runs(): TestRunRecord[] {
    return this.store.read((tx) => [...tx.scan('testRuns', { prefix: [this.queueId] })].map((entry) => entry.value));
  }

  activeRuns(): TestRunRecord[] {
    return this.runs().filter((run) => run.status === 'in_progress');
  }

  /** The active run testing exactly these PRs. */
  runOf(...prs: number[]): TestRunRecord {
    const run = this.activeRuns().find((candidate) => candidate.prs.join() === prs.join());
    if (run === undefined) {
      throw new Error(
        `no active run tests ${prs.join(', ')}; active: ${this.activeRuns()
          .map((r) => `[${r.prs.join()}] on [${r.basePrs.join()}]`)
          .join(' ')}`,
      );
    }
    return run;
  }

  async report(run: TestRunRecord, state: 'success' | 'failure', context = 'ci'): Promise<void> {
    this.engine.setCommitStatus(KEY.org, { repo: KEY.repo, sha: run.testBranchSha, context, state });
    await this.engine.settle();
  }

  async pass(...prs: number[]): Promise<void> {
    await this.report(this.runOf(...prs), 'success');
  }

  async fail(...prs: number[]): Promise<void> {
    await this.report(this.runOf(...prs), 'failure');
  }

  async advanceMinutes(minutes: number): Promise<void> {
    this.scheduler.advanceBy(minutes * 60_000);
    await this.engine.settle();
  }

  /** Every timeline entry of the queue, keyed [queueId, number, seq]. */
  timeline() {
    return this.store.read((tx) => [...tx.scan('timeline', { prefix: [this.queueId] })]);
  }

  /** PR numbers in the order they merged. */
  mergeOrder(): number[] {
    return this.timeline()
      .filter((entry) => entry.value.event === 'merged')
      .sort((a, b) => Number(a.key[2]) - Number(b.key[2]))
      .map((entry) => Number(entry.key[1]));
  }
}

/** Uploads targets, then submits: PR number → targets. */
export async function enqueue(h: QueueHarness, prs: Record<number, readonly string[] | 'ALL'>): Promise<void> {
  for (const [number, targets] of Object.entries(prs)) {
    await h.targets(Number(number), targets);
    await h.submit(Number(number));
  }
}

/** The base of each active run, by its PRs joined with `+`. */
export const bases = (h: QueueHarness) =>
  Object.fromEntries(h.activeRuns().map((run) => [run.prs.join('+'), run.basePrs]));
