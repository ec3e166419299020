/**
 * One contract for every git host (engine/providers/types.ts): the same cases run on each fixture of
 * gitHost.fixtures.ts. Every call may be repeated after a crash, so each case also repeats what it did.
 */
import { afterEach, describe, expect, test } from 'vitest';
import type { RepoRef } from '../../engine/model/queues.js';
import { testBranchName } from '../../engine/model/testRuns.js';
import type { GitHost, MergeRequest, PullRequestFacts, TestBranchRequest } from '../../engine/providers/types.js';
import { HOSTS } from '../../hosts/index.js';
import { GIT_HOSTS, type GitHostFixture } from './gitHost.fixtures.js';

const SHA = /^[0-9a-f]{40}$/;

/** Facts may not be known at the first ask (GitHub computes mergeability in the background): the engine asks again. */
async function factsOf(host: GitHost, repo: RepoRef, number: number): Promise<PullRequestFacts | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await host.pullRequest(repo, number, 'main');
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
}

async function request(
  fixture: GitHostFixture,
  runId: string,
  numbers: number[],
  baseSha?: string,
): Promise<TestBranchRequest> {
  const { host, repo } = fixture;
  const pullRequests = [];
  for (const number of numbers) pullRequests.push({ number, sha: (await factsOf(host, repo, number))!.sha });
  return {
    repo,
    targetBranch: 'main',
    runId,
    baseSha: baseSha ?? (await host.targetHead(repo, 'main')),
    pullRequests,
    mergeMethod: 'merge_commit',
  };
}

/** The merge of PR `number` tested on `testBranchSha`, expecting the target at `expectedHead`. */
async function mergeRequest(
  fixture: GitHostFixture,
  number: number,
  expectedHead: string,
  testBranchSha: string,
): Promise<MergeRequest> {
  const facts = (await factsOf(fixture.host, fixture.repo, number))!;
  return {
    repo: fixture.repo,
    targetBranch: 'main',
    expectedHead,
    pullRequest: { number, sha: facts.sha, title: facts.title },
    testBranchSha,
    mergeMethod: 'merge_commit',
  };
}

let fixture: GitHostFixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(HOSTS.map((host) => host.name))('the git host contract: %s', (name) => {
  const open = async () => {
    const make = GIT_HOSTS[name];
    if (make === undefined) throw new Error(`the registered host ${name} has no fixture in gitHost.fixtures.ts`);
    return (fixture = await make());
  };

  test('the target head is a SHA, the same when asked again', async () => {
    const { host, repo } = await open();
    const head = await host.targetHead(repo, 'main');
    expect(head).toMatch(SHA);
    expect(await host.targetHead(repo, 'main')).toBe(head);
  });

  test("a PR's facts: its head, its base branch, mergeable and up to date; the same when asked again", async () => {
    const { host, repo } = await open();
    const facts = await factsOf(host, repo, 1);
    expect(facts).toMatchObject({ baseBranch: 'main', mergeable: true, upToDate: true });
    expect(facts!.sha).toMatch(SHA);
    expect(await factsOf(host, repo, 1)).toEqual(facts);
  });

  test('a PR the host does not have has no facts, or facts that keep it from testing, with the reason', async () => {
    const f = await open();
    if (!f.stateful) return; // The simulated host has every PR number.
    // GitHub answers undefined; the local host, whose PRs are refs that may be pushed later, a PR not mergeable.
    const facts = await f.host.pullRequest(f.repo, 99, 'main');
    if (facts !== undefined)
      expect(facts).toMatchObject({
        mergeable: false,
        notMergeableReason: expect.stringContaining('refs/pull/99/head'),
      });
  });

  test('a test branch, built again, is the same branch at the same commit', async () => {
    const f = await open();
    const build = await request(f, 'tr_contract_0', [1]);
    const built = await f.host.buildTestBranch(build);
    expect(built).toMatchObject({ ok: true, branch: testBranchName('main', 'tr_contract_0') });
    if (!built.ok) return;
    expect(built.sha).toMatch(SHA);
    expect(await f.host.buildTestBranch(build)).toEqual(built);
  });

  test('merging the tested branch moves the target to it; merging again answers the same head', async () => {
    const f = await open();
    const head = await f.host.targetHead(f.repo, 'main');
    const built = await f.host.buildTestBranch(await request(f, 'tr_contract_1', [1], head));
    if (!built.ok) throw new Error(built.reason);
    const merge = await mergeRequest(f, 1, head, built.sha);
    const merged = await f.host.merge(merge);
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.head).toMatch(SHA);
    expect(await f.host.merge(merge)).toMatchObject({ ok: true, head: merged.head });
    if (!f.stateful) return;
    expect(await f.host.targetHead(f.repo, 'main')).toBe(merged.head);
    // Merged exactly what was tested: the target is the test branch's commit.
    expect(merged.head).toBe(built.sha);
  });

  test('a merge expecting a head the target has left is refused, saying where the target is, every time', async () => {
    const f = await open();
    if (!f.stateful) return; // The simulated host keeps no head to compare with.
    const head = await f.host.targetHead(f.repo, 'main');
    const built = await f.host.buildTestBranch(await request(f, 'tr_contract_2', [1], head));
    if (!built.ok) throw new Error(built.reason);
    await f.pushToTarget();
    const moved = await f.host.targetHead(f.repo, 'main');
    expect(moved).not.toBe(head);
    const merge = await mergeRequest(f, 1, head, built.sha);
    for (const _attempt of [1, 2]) {
      expect(await f.host.merge(merge)).toMatchObject({ ok: false, target: { head: moved } });
      expect(await f.host.targetHead(f.repo, 'main')).toBe(moved);
    }
  });

  test('PRs that conflict: the branch is refused, naming the PR that does not apply and its files, every time', async () => {
    const f = await open();
    if (!f.stateful) return; // Simulated PRs never conflict.
    const build = await request(f, 'tr_contract_3', [2, 3]);
    for (const _attempt of [1, 2]) {
      const refused = await f.host.buildTestBranch(build);
      expect(refused).toMatchObject({ ok: false, conflict: { number: 3 } });
      if (!refused.ok) expect(refused.conflict?.files).toEqual(f.namesConflictFiles ? ['c.txt'] : []);
    }
  });

  test('deleting a test branch twice, or one never built, and notes and status checks again, are all fine', async () => {
    const f = await open();
    const built = await f.host.buildTestBranch(await request(f, 'tr_contract_4', [1]));
    if (!built.ok) throw new Error(built.reason);
    await f.host.deleteTestBranch(f.repo, built.branch);
    await f.host.deleteTestBranch(f.repo, built.branch);
    await f.host.deleteTestBranch(f.repo, testBranchName('main', 'tr_never_built'));
    const sha = (await factsOf(f.host, f.repo, 1))!.sha;
    for (const _attempt of [1, 2]) {
      await f.host.comment(f.repo, 1, 'a note');
      await f.host.setStatusCheck(f.repo, sha, 'pending', 'testing', 1);
    }
    // Built again after its deletion: the same branch (a new build: its commit may carry another time).
    expect(await f.host.buildTestBranch(await request(f, 'tr_contract_4', [1]))).toMatchObject({
      ok: true,
      branch: built.branch,
    });
  });
});
