/**
 * One contract for git hosts (engine/providers/types.ts): the simulated host, the local host on a real bare
 * repository, and the GitHub provider against the GitHub stand-in all pass it.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Bottleneck from 'bottleneck';
import { afterEach, describe, expect, test } from 'vitest';
import type { RepoRef } from '../../engine/model/queues.js';
import { testBranchName } from '../../engine/model/runs.js';
import { GitHubApp } from '../../engine/providers/github/client.js';
import { GitHubHost } from '../../engine/providers/github/githubHost.js';
import { LocalGitHost } from '../../engine/providers/local/localGitHost.js';
import { SimGitHost } from '../../engine/providers/simGitHost.js';
import type { GitHost, PullRequestFacts } from '../../engine/providers/types.js';
import { Clone } from '../git/helpers.js';
import { GitHubStandIn, OWNER, REPO } from '../github/standIn.js';

interface Fixture {
  host: GitHost;
  repo: RepoRef;
  /** Whether the host keeps branches (the simulated one keeps nothing: its heads are hashes of what they stand for). */
  stateful: boolean;
  close(): Promise<void>;
}

const SHA = /^[0-9a-f]{40}$/;

const FIXTURES: Record<string, () => Promise<Fixture>> = {
  sim: async () => ({ host: new SimGitHost(), repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, stateful: false, close: async () => {} }),
  local: async () => {
    const root = await mkdtemp(join(tmpdir(), 'greenline-contract-'));
    const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
    const host = new LocalGitHost({ dataDir: join(root, 'data') });
    await host.prepareRepository(repo, 'main');
    const clone = await Clone.create(join(root, 'clone'), host.repositoryPath(repo));
    const base = await clone.commit('Initial', { 'README.md': 'hello\n' });
    await clone.pushBase();
    await clone.pr(1, base, { 'a.txt': 'a\n' }, 'Add a.txt');
    return { host, repo, stateful: true, close: () => rm(root, { recursive: true, force: true }) };
  },
  github: async () => {
    const keys = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const github = new GitHubStandIn(keys.publicKey);
    await github.listen();
    github.push('main', { 'README.md': 'hello\n' }, 'Initial');
    github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    const client = new GitHubApp({
      appId: '1',
      privateKey: keys.privateKey,
      baseUrl: github.url,
      retries: 0,
      throttle: { write: new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 }), retryAfterBaseValue: 1 },
    });
    return {
      host: new GitHubHost(client),
      repo: { host: 'github.com', owner: OWNER, name: REPO },
      stateful: true,
      close: async () => {
        await github.close();
        expect(github.violations).toEqual([]);
      },
    };
  },
};

/** Facts may not be known at the first ask (GitHub computes mergeability in the background): the engine asks again. */
async function factsOf(host: GitHost, repo: RepoRef): Promise<PullRequestFacts | undefined> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await host.pullRequest(repo, 1, 'main');
    } catch (error) {
      if (attempt >= 2) throw error;
    }
  }
}

let fixture: Fixture | undefined;
afterEach(async () => {
  await fixture?.close();
  fixture = undefined;
});

describe.each(Object.keys(FIXTURES))('the git host contract: %s', (name) => {
  test('facts, a test branch, a merge, each safe to repeat', async () => {
    const { host, repo, stateful } = (fixture = await FIXTURES[name]!());
    const head = await host.targetHead(repo, 'main');
    expect(head).toMatch(SHA);
    expect(await host.targetHead(repo, 'main')).toBe(head);

    const facts = await factsOf(host, repo);
    expect(facts).toMatchObject({ baseBranch: 'main', mergeable: true, upToDate: true });
    expect(facts!.sha).toMatch(SHA);

    const request = {
      repo,
      targetBranch: 'main',
      runId: 'tr_contract_0',
      baseSha: head,
      pullRequests: [{ number: 1, sha: facts!.sha }],
      mergeMethod: 'merge_commit' as const,
    };
    const built = await host.buildTestBranch(request);
    expect(built).toMatchObject({ ok: true, branch: testBranchName('main', 'tr_contract_0') });
    const again = await host.buildTestBranch(request);
    expect(again).toMatchObject({ ok: true, branch: testBranchName('main', 'tr_contract_0') });
    if (!again.ok) return;
    expect(again.sha).toMatch(SHA);

    const merge = {
      repo,
      targetBranch: 'main',
      expectedHead: head,
      pullRequest: { number: 1, sha: facts!.sha, title: facts!.title },
      testBranchSha: again.sha,
      mergeMethod: 'merge_commit' as const,
    };
    const merged = await host.merge(merge);
    expect(merged.ok).toBe(true);
    if (!merged.ok) return;
    expect(merged.head).toMatch(SHA);
    expect(await host.merge(merge)).toMatchObject({ ok: true, head: merged.head });
    if (stateful) {
      expect(await host.targetHead(repo, 'main')).toBe(merged.head);
      // Merged exactly what was tested: the target's tree is the test branch's.
      expect(merged.head).toBe(again.sha);
    }

    await host.deleteTestBranch(repo, again.branch);
    await host.deleteTestBranch(repo, again.branch);
    await host.comment(repo, 1, 'merged');
    await host.setStatusCheck(repo, facts!.sha, 'success', 'merged', 1);
  });
});
