/**
 * How the engine takes what a git host reports beyond the simulated host's answers: conflicts naming a PR, a target
 * branch that moved, the target's configuration, notes on PRs. A scripted host plays the git host.
 */
import { describe, expect, test } from 'vitest';
import { Engine } from '../../engine/engine.js';
import { SimGitHost, simSha } from '../../engine/providers/sim/simGitHost.js';
import type {
  GitHost,
  MergeRequest,
  MergeResult,
  PullRequestFacts,
  PullRequestNote,
  TestBranchRequest,
  TestBranchResult,
} from '../../engine/providers/types.js';
import type { RepoRef } from '../../engine/model/queues.js';
import { VirtualScheduler } from '../../engine/runtime/scheduler.js';
import { createMemoryStore } from '../../engine/store/index.js';
import { KEY } from './queueHarness.js';

/** The simulated host, except for the answers a test scripts. */
class ScriptedHost implements GitHost {
  readonly name = 'scripted';
  private readonly sim = new SimGitHost();
  head = simSha('head', 0);
  requiredStatuses: string[] | null = null;
  builds: ((request: TestBranchRequest) => TestBranchResult | undefined)[] = [];
  merges: ((request: MergeRequest) => MergeResult | undefined)[] = [];

  async targetHead(): Promise<string> {
    return this.head;
  }

  async pullRequest(repo: RepoRef, number: number, targetBranch: string): Promise<PullRequestFacts> {
    return {
      ...(await this.sim.pullRequest(repo, number, targetBranch)),
      target: { head: this.head, requiredStatuses: this.requiredStatuses },
    };
  }

  async buildTestBranch(request: TestBranchRequest): Promise<TestBranchResult> {
    return this.builds.shift()?.(request) ?? this.sim.buildTestBranch(request);
  }

  async deleteTestBranch(): Promise<void> {}

  async merge(request: MergeRequest): Promise<MergeResult> {
    const scripted = this.merges.shift()?.(request);
    if (scripted !== undefined) return scripted;
    const result = await this.sim.merge(request);
    if (result.ok) this.head = result.head;
    return result.ok ? { ...result, target: { head: result.head, requiredStatuses: this.requiredStatuses } } : result;
  }

  async comment(_repo: RepoRef, _number: number, body: string): Promise<PullRequestNote> {
    return { message: `comment: ${body}` };
  }

  async setStatusCheck(): Promise<void> {}
}

function setup(errors: string[] = []) {
  const host = new ScriptedHost();
  const store = createMemoryStore();
  const scheduler = new VirtualScheduler(Date.parse('2026-11-22T00:00:00.000Z'));
  const engine = new Engine(store, { scheduler, gitHost: host, onError: (message) => void errors.push(message) });
  engine.start();
  const runs = () => store.read((tx) => [...tx.scan('testRuns')].map((entry) => entry.value));
  const active = (...prs: number[]) => {
    const run = runs().find((candidate) => candidate.status === 'in_progress' && candidate.prs.join() === prs.join());
    if (run === undefined) throw new Error(`no active run of ${prs.join()}`);
    return run;
  };
  const pr = (number: number) => engine.getSubmittedPullRequest(KEY, number, true);
  const pass = async (...prs: number[]) => {
    engine.setCommitStatus(KEY.org, {
      repo: KEY.repo,
      sha: active(...prs).testBranchSha,
      context: 'ci',
      state: 'success',
    });
    await engine.settle();
  };
  return { host, engine, store, scheduler, runs, active, pr, pass };
}

describe('what the git host reports', () => {
  test('a conflict naming a PR under test fails it at once; the PRs behind test again without it', async () => {
    const { host, engine, active, pr } = setup();
    engine.createQueue(KEY, { concurrency: 3, requiredStatuses: ['ci'], pendingFailureDepth: 2 });
    host.builds.push(
      () => undefined,
      () => ({ ok: false, reason: '#2 conflicts with main + #1 in a.txt', conflict: { number: 2, files: ['a.txt'] } }),
    );
    for (const number of [1, 2, 3]) engine.submitPullRequest(KEY, number);
    await engine.settle();
    expect(pr(2).pr).toMatchObject({ state: 'FAILED', reason: '#2 conflicts with main + #1 in a.txt' });
    expect(pr(2).timeline?.map((entry) => entry.event)).toEqual(['submitted', 'ready', 'testing', 'failed', 'comment']);
    expect(active(3).basePrs).toEqual([1]);
    expect(pr(1).pr.state).toBe('TESTING');
  });

  test('a conflict naming a PR ahead (not under test) rebuilds that PR first, then the run on what remains', async () => {
    const { host, engine, runs, active, pr } = setup();
    engine.createQueue(KEY, { concurrency: 2, requiredStatuses: ['ci'] });
    host.builds.push(
      () => undefined,
      () => ({ ok: false, reason: '#1 conflicts', conflict: { number: 1, files: ['x'] } }),
    );
    engine.submitPullRequest(KEY, 1);
    engine.submitPullRequest(KEY, 2);
    await engine.settle();
    // #1's own result no longer holds: it is tested again (here it applies), and #2 on top of it.
    expect(pr(1).pr.state).toBe('TESTING');
    expect(
      runs()
        .filter((run) => run.prs.join() === '1')
        .map((run) => run.status),
    ).toEqual(['cancelled', 'in_progress']);
    expect(
      runs()
        .filter((run) => run.prs.join() === '2')
        .map((run) => run.status),
    ).toEqual(['cancelled', 'in_progress']);
    expect(active(2).basePrs).toEqual([1]);

    // When #1 conflicts on its own rebuild, it fails alone and #2 goes on without it: a bounded number of builds.
    host.builds.push(
      () => ({ ok: false, reason: '#1 conflicts with main in x', conflict: { number: 1, files: ['x'] } }),
      () => ({ ok: false, reason: '#1 conflicts', conflict: { number: 1, files: ['x'] } }),
    );
    engine.restartTestsOnPullRequest(KEY, 1);
    await engine.settle();
    expect(pr(1).pr).toMatchObject({ state: 'FAILED', reason: '#1 conflicts with main in x' });
    expect(active(2).basePrs).toEqual([]);
    expect(runs().length).toBeLessThan(10);
  });

  test('a test branch the host keeps failing to build is given up: its PRs are cancelled and the queue goes on', async () => {
    const errors: string[] = [];
    const { host, engine, store, scheduler, pr } = setup(errors);
    engine.createQueue(KEY, { concurrency: 2, requiredStatuses: ['ci'] });
    let failures = 0;
    host.builds.push(
      ...Array.from({ length: 10 }, () => () => {
        failures++;
        throw new Error('fatal: disk quota exceeded');
      }),
    );
    engine.submitPullRequest(KEY, 1);
    await engine.settle();
    for (let minute = 0; minute < 30; minute++) {
      scheduler.advanceBy(60_000);
      await engine.settle();
    }
    expect(failures).toBe(10);
    expect(errors.at(-1)).toMatch(/failed 10 times; gave up on run/);
    expect(pr(1).pr).toMatchObject({ state: 'CANCELLED' });
    expect(pr(1).pr.reason).toContain(
      'the git host failed to build the test branch 10 times: fatal: disk quota exceeded',
    );
    expect(store.read((tx) => tx.count('outbox'))).toBe(0);
    // The queue still works.
    engine.submitPullRequest(KEY, 2);
    await engine.settle();
    expect(pr(2).pr.state).toBe('TESTING');
  });

  test('a merge refused because the target moved: the head is adopted and everything tested on the old one is tested again', async () => {
    const { host, engine, runs, active, pr, pass } = setup();
    engine.createQueue(KEY, { concurrency: 2, requiredStatuses: ['ci'] });
    engine.submitPullRequest(KEY, 1);
    engine.submitPullRequest(KEY, 2);
    await engine.settle();
    const moved = simSha('pushed');
    host.merges.push(() => ({ ok: false, reason: 'main moved', target: { head: moved, requiredStatuses: ['build'] } }));
    const before = active(2);
    await pass(1);
    expect(pr(1).pr.state).toBe('TESTING');
    expect(runs().find((run) => run.id === before.id)?.status).toBe('cancelled');
    expect(active(1)).toMatchObject({ baseSha: moved, requiredStatuses: ['ci'] });
    expect(active(2)).toMatchObject({ baseSha: moved, basePrs: [1] });
    expect(engine.getQueue(KEY).queue.repositoryConfig).toEqual({ sha: moved, requiredStatuses: ['build'] });
    await pass(1);
    expect(pr(1).pr.state).toBe('MERGED');
  });

  test('a build whose base is gone adopts the head the host reports', async () => {
    const { host, engine, active } = setup();
    engine.createQueue(KEY, { requiredStatuses: ['ci'] });
    const rewritten = simSha('rewritten');
    host.builds.push(() => ({ ok: false, reason: 'the base is gone', target: { head: rewritten } }));
    engine.submitPullRequest(KEY, 1);
    await engine.settle();
    expect(active(1).baseSha).toBe(rewritten);
  });

  test("the target's configuration applies (service_config) and the head is adopted only when nothing depends on the old one", async () => {
    const { host, engine, active, pass } = setup();
    host.requiredStatuses = ['ci'];
    engine.createQueue(KEY, { concurrency: 2 });
    engine.submitPullRequest(KEY, 1);
    await engine.settle();
    expect(active(1)).toMatchObject({
      requiredStatuses: ['ci'],
      requiredStatusesSource: 'service_config',
      baseSha: host.head,
    });
    const tested = host.head;
    host.head = simSha('pushed meanwhile');
    engine.submitPullRequest(KEY, 2);
    await engine.settle();
    // PR 1 is testing on the old head: the queue keeps it (the merge will tell).
    expect(active(2).baseSha).toBe(tested);
    expect(engine.getQueue(KEY).queue).toMatchObject({
      runtime: { targetHead: tested },
      repositoryConfig: { sha: tested },
    });
    await pass(1);
    await pass(2);
    // Idle again: the next readiness check adopts what the host reports.
    host.head = simSha('pushed later');
    host.requiredStatuses = ['ci', 'lint'];
    engine.submitPullRequest(KEY, 3);
    await engine.settle();
    expect(active(3)).toMatchObject({ baseSha: simSha('pushed later'), requiredStatuses: ['ci', 'lint'] });
  });
});
