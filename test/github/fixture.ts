/**
 * The setup the GitHub-mode suites share: a stand-in whose main has a first commit, a queue, PRs opened on it and
 * submitted. Each test's queue is closed after it, and the stand-in must have seen no request GitHub would reject.
 */
import { afterEach, expect } from 'vitest';
import type { QueuePatch } from '../../engine/model/queues.js';
import type { Files } from './gitModel.js';
import { GitHubQueue } from './harness.js';

let current: GitHubQueue | undefined;

/** Call once per test file: closes each test's queue and checks the stand-in's record of violations. */
export function closeQueuesAfterEach(): void {
  afterEach(async () => {
    const q = current;
    current = undefined;
    if (q === undefined) return;
    await q.close();
    expect(q.github.violations).toEqual([]);
  });
}

/** PRs to open: number → title and the files it changes. */
export type Pulls = Record<number, [title: string, change: Files]>;
export const ADD_A: Pulls = { 1: ['Add a.txt', { 'a.txt': 'a\n' }] };
/** Two PRs that conflict: each rewrites shared.txt. */
export const ONE_AND_TWO: Pulls = { 1: ['One', { 'shared.txt': 'ONE\n' }], 2: ['Two', { 'shared.txt': 'TWO\n' }] };

/** The stand-in with main at its first commit (README.md, shared.txt). */
export async function started(): Promise<GitHubQueue> {
  const q = (current = await GitHubQueue.create());
  q.github.push('main', { 'README.md': 'hello\n', 'shared.txt': 'one\ntwo\nthree\n' }, 'Initial');
  return q;
}

/** A queue with `patch` and the PRs opened (not submitted). */
export async function opened(patch: QueuePatch = {}, pulls: Pulls = ADD_A): Promise<GitHubQueue> {
  const q = await started();
  q.createQueue(patch);
  for (const [number, [title, change]] of Object.entries(pulls)) q.github.openPull(Number(number), title, change);
  return q;
}

/**
 * A queue with `patch` and the PRs opened and submitted in order, each by a `/greenline merge` comment, every
 * effect done after each.
 */
export async function submitted(patch: QueuePatch = {}, pulls: Pulls = ADD_A): Promise<GitHubQueue> {
  const q = await opened(patch, pulls);
  for (const number of Object.keys(pulls))
    await q.deliver('issue_comment', q.commentPayload(Number(number), '/greenline merge'));
  return q;
}
