/** A push to a queued PR's branch reported by the git host (GitHub's pull_request.synchronize): the input `prPushed`. */
import { describe, expect, test } from 'vitest';
import type { GitHost, PullRequestFacts } from '../../engine/providers/types.js';
import { SimGitHost } from '../../engine/providers/sim/simGitHost.js';
import { KEY, QueueHarness } from './queueHarness.js';

const NEW_HEAD = 'e'.repeat(40);

/** The simulated host, told of pushes to PRs (it reports their new heads). */
class PushableHost extends SimGitHost {
  readonly heads = new Map<number, string>();
  override async pullRequest(...args: Parameters<SimGitHost['pullRequest']>): Promise<PullRequestFacts> {
    const facts = await super.pullRequest(...args);
    return { ...facts, sha: this.heads.get(args[1]) ?? facts.sha };
  }
}

/** A push to PR `number` on the host, then its webhook. */
async function push(h: QueueHarness, host: PushableHost, number: number, sha: string): Promise<void> {
  host.heads.set(number, sha);
  h.engine.pullRequestPushed(KEY, number, sha);
  await h.engine.settle();
}

describe('a push to a queued PR', () => {
  test('it keeps its place; its run and the runs on top of it are tested again with the new head', async () => {
    const host = new PushableHost();
    const h = new QueueHarness(undefined, host);
    await h.create({ concurrency: 3 });
    await h.submit(1, 2, 3);
    await h.pass(3);
    const [run1, run2] = [h.runOf(1), h.runOf(2)];
    expect(run2.basePrs).toEqual([1]);
    await push(h, host, 2, NEW_HEAD);
    expect(h.engine.getQueue(KEY).queue.runtime.lineup).toEqual([1, 2, 3]);
    expect(h.runs().find((run) => run.id === run2.id)?.status).toBe('cancelled');
    expect(h.runs().find((run) => run.id === run1.id)?.status).toBe('in_progress');
    // #3 passed on top of the old head of #2: that result no longer counts.
    expect(h.states(1, 2, 3)).toEqual(['TESTING', 'TESTING', 'TESTING']);
    expect(h.pr(2).sha).toBe(NEW_HEAD);
    const retest = h.runOf(2);
    expect(retest.id).not.toBe(run2.id);
    expect(h.timeline().some((entry) => entry.value.event === 'head_pushed')).toBe(true);
    await h.pass(1);
    await h.pass(2);
    await h.pass(3);
    expect(h.mergeOrder()).toEqual([1, 2, 3]);
  });

  test('a result that stood on the pushed PR is tested again, with one timeline line saying why', async () => {
    const host = new PushableHost();
    const h = new QueueHarness(undefined, host);
    await h.create({ concurrency: 3 });
    await h.submit(1, 2, 3);
    await h.pass(3);
    await push(h, host, 2, NEW_HEAD);
    const requeued = (number: number) =>
      h.timeline().filter((entry) => Number(entry.key[1]) === number && entry.value.event === 'requeued');
    expect(requeued(3).map((entry) => entry.value.message)).toEqual([
      `#2 was pushed to (${NEW_HEAD.slice(0, 12)}): results with its old head no longer count`,
    ]);
    // #1, ahead of it, tested on nothing it was pushed to, goes on.
    expect(requeued(1)).toEqual([]);
  });

  test('a push to a PR that passed sends it back to testing in its place, and the run on top of it is cancelled; the same head changes nothing', async () => {
    const host = new PushableHost();
    const h = new QueueHarness(undefined, host);
    await h.create({ concurrency: 2 });
    await h.submit(1, 2, 3);
    await h.pass(2);
    const run3 = h.runOf(3);
    expect(h.states(1, 2, 3)).toEqual(['TESTING', 'TESTS_PASSED', 'TESTING']);
    h.engine.pullRequestPushed(KEY, 2, QueueHarness.headOf(2));
    await h.engine.settle();
    expect(h.states(1, 2, 3)).toEqual(['TESTING', 'TESTS_PASSED', 'TESTING']);
    expect(h.runOf(3).id).toBe(run3.id);
    await push(h, host, 2, NEW_HEAD);
    expect(h.states(1, 2, 3)).toEqual(['TESTING', 'TESTING', 'PENDING']);
    expect(h.runs().find((run) => run.id === run3.id)?.status).toBe('cancelled');
    expect(h.engine.getQueue(KEY).queue.runtime.lineup).toEqual([1, 2, 3]);
  });

  test('a second push whose webhook was lost is found by the check of the first, and taken as a push', async () => {
    const host = new PushableHost();
    const h = new QueueHarness(undefined, host);
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    const first = h.runOf(2);
    const latest = NEW_HEAD.replace(/e/g, 'd');
    host.heads.set(2, latest);
    h.engine.pullRequestPushed(KEY, 2, NEW_HEAD);
    await h.engine.settle();
    expect(h.pr(2)).toMatchObject({ state: 'TESTING', sha: latest });
    expect(h.runOf(2).id).not.toBe(first.id);
    expect(h.engine.getQueue(KEY).queue.runtime.lineup).toEqual([1, 2]);
    const pushes = h
      .timeline()
      .filter((entry) => entry.value.event === 'head_pushed')
      .map((entry) => entry.value.sha);
    expect(pushes).toEqual([NEW_HEAD, latest]);
  });

  test('when the new head is not mergeable, it goes back to waiting as not ready', async () => {
    const sim = new SimGitHost();
    let conflicted = false;
    const host: GitHost = Object.assign(Object.create(sim) as GitHost, {
      pullRequest: async (...args: Parameters<GitHost['pullRequest']>): Promise<PullRequestFacts> => {
        const facts = (await sim.pullRequest(...args)) as PullRequestFacts;
        return args[1] === 1 && conflicted
          ? { ...facts, sha: NEW_HEAD, mergeable: false, notMergeableReason: 'a conflict' }
          : facts;
      },
    });
    const h = new QueueHarness(undefined, host);
    await h.create({ concurrency: 2 });
    await h.submit(1, 2);
    conflicted = true;
    h.engine.pullRequestPushed(KEY, 1, NEW_HEAD);
    await h.engine.settle();
    expect(h.pr(1)).toMatchObject({ state: 'NOT_READY', readiness: { gitHubMergeability: 'not_mergeable' } });
    expect(h.engine.getQueue(KEY).queue.runtime.waiting).toEqual([1]);
    expect(h.states(2)).toEqual(['TESTING']);
    expect(h.runOf(2).basePrs).toEqual([]);
  });
});
