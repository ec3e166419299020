/**
 * The git hosts of the contract (engine/providers/types.ts), each over the same repository: `main` holds README.md;
 * PR 1 adds a.txt; PRs 2 and 3 each write c.txt, differently (they conflict). The simulated host, the local host on
 * a real bare repository, and the GitHub provider against the GitHub stand-in.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Bottleneck from 'bottleneck';
import { expect } from 'vitest';
import type { RepoRef } from '../../engine/model/queues.js';
import { GitHubApp } from '../../engine/providers/github/client.js';
import { GitHubHost } from '../../engine/providers/github/githubHost.js';
import type { HostContext } from '../../hosts/hostPlugin.js';
import { hostNamed } from '../../hosts/index.js';
import type { LocalGitHost } from '../../engine/providers/local/localGitHost.js';
import { WallScheduler } from '../../engine/runtime/scheduler.js';
import type { GitHost } from '../../engine/providers/types.js';
import { Clone } from '../git/helpers.js';
import { GitHubStandIn, OWNER, REPO } from '../github/standIn.js';

export interface GitHostFixture {
  host: GitHost;
  repo: RepoRef;
  /**
   * Whether the host keeps branches and pull requests. The simulated one keeps nothing (its heads are hashes of what
   * they stand for, every PR number exists and merges): the cases about moved targets, conflicts and unknown PRs are
   * for the others.
   */
  stateful: boolean;
  /** Whether a refused test branch names the files in conflict (GitHub's merge API answers 409 without them). */
  namesConflictFiles: boolean;
  /** A person's push to `main`, outside the queue (stateful hosts). */
  pushToTarget(): Promise<void>;
  close(): Promise<void>;
}

const FILES = {
  readme: { 'README.md': 'hello\n' },
  1: { 'a.txt': 'a\n' },
  2: { 'c.txt': 'two\n' },
  3: { 'c.txt': 'three\n' },
};

/** The host as the registry (engine/providers/hosts.ts) opens it for the service, with its default settings. */
async function opened(name: string, dataDir: string): Promise<GitHost> {
  const plugin = hostNamed(name);
  if (plugin === undefined) throw new Error(`no registered host ${name}`);
  const context: HostContext = {
    dataDir,
    scheduler: new WallScheduler(),
    publicUrl: () => undefined,
    simCi: undefined,
  };
  return (await plugin.open(plugin.configure({}, { simCi: false }), context)).gitHost;
}

/** A fixture for each host of the registry, by its name (the contract runs over the registry: one missing fails it). */
export const GIT_HOSTS: Record<string, () => Promise<GitHostFixture>> = {
  sim: async () => ({
    host: await opened('sim', tmpdir()),
    repo: { host: 'github.com', owner: 'acme', name: 'widgets' },
    stateful: false,
    namesConflictFiles: false,
    pushToTarget: async () => {},
    close: async () => {},
  }),
  local: async () => {
    const root = await mkdtemp(join(tmpdir(), 'greenline-contract-'));
    const repo = { host: 'github.com', owner: 'acme', name: 'widgets' };
    const host = (await opened('local', join(root, 'data'))) as LocalGitHost;
    await host.prepareRepository(repo, 'main');
    const clone = await Clone.create(join(root, 'clone'), host.repositoryPath(repo));
    const base = await clone.commit('Initial', FILES.readme);
    await clone.pushBase();
    for (const number of [1, 2, 3] as const) await clone.pr(number, base, FILES[number], `Change ${number}`);
    return {
      host,
      repo,
      stateful: true,
      namesConflictFiles: true,
      pushToTarget: async () => {
        await clone.checkout(base);
        await clone.commit('A direct push', { 'direct.txt': 'pushed\n' });
        await clone.pushBase();
      },
      close: () => rm(root, { recursive: true, force: true }),
    };
  },
  github: async () => {
    const keys = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
      publicKeyEncoding: { type: 'spki', format: 'pem' },
    });
    const github = new GitHubStandIn(keys.publicKey);
    await github.listen();
    github.push('main', FILES.readme, 'Initial');
    for (const number of [1, 2, 3] as const) github.openPull(number, `Change ${number}`, FILES[number]);
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
      namesConflictFiles: false,
      pushToTarget: async () => {
        github.push('main', { 'direct.txt': 'pushed\n' }, 'A direct push');
      },
      close: async () => {
        await github.close();
        expect(github.violations).toEqual([]);
      },
    };
  },
};
