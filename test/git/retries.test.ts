/** Failing git operations are retried (by the runner, then by the engine's outbox); one repository at a time. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { GitRunner, type GitCommand } from '../../engine/providers/local/gitRunner.js';
import { GitQueue } from './helpers.js';

let queue: GitQueue | undefined;
afterEach(async () => {
  await queue?.close();
  queue = undefined;
});

/** A fault that fails the attempts of matching commands listed in `attempts` (counted over every matching call). */
function fault(matches: (command: GitCommand) => boolean, failing: number) {
  const seen: number[] = [];
  let count = 0;
  return {
    seen,
    beforeRun: (command: GitCommand, attempt: number) => {
      if (!matches(command)) return;
      seen.push(attempt);
      if (++count <= failing) throw new Error(`injected failure ${count} of git ${command.args.join(' ')}`);
    },
  };
}

const movesTarget = (command: GitCommand) =>
  command.args[0] === 'update-ref' && command.args.includes('refs/heads/main');

describe('retries', () => {
  test('a git command that fails once is retried and the operation succeeds', async () => {
    const injected = fault(movesTarget, 1);
    const retried: string[] = [];
    const q = (queue = await GitQueue.create({
      runner: { beforeRun: injected.beforeRun, onRetry: (command) => retried.push(command.args[0] ?? '') },
    }));
    await q.create({ requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    const run = q.runOf(1);
    await q.report(run, 'success');
    expect(injected.seen).toEqual([1, 2]);
    expect(retried).toEqual(['update-ref']);
    expect(q.pr(1).state).toBe('MERGED');
    expect((await q.target()).head).toBe(run.testBranchSha);
    expect(q.errors).toEqual([]);
  });

  test('an operation that keeps failing leaves the target as it was; the engine retries it later and it completes', async () => {
    // Three attempts per command: the first merge fails as a whole, the engine's retry succeeds.
    const injected = fault(movesTarget, 3);
    const q = (queue = await GitQueue.create({ runner: { beforeRun: injected.beforeRun } }));
    await q.create({ requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    const run = q.runOf(1);
    await q.report(run, 'success');
    expect(q.errors).toHaveLength(1);
    expect(q.errors[0]).toMatch(/effect merge of q_\w+ failed \(attempt 1\); retrying: Error: injected failure 3/);
    expect(q.pr(1)).toMatchObject({ state: 'TESTS_PASSED', mergeRequested: true });
    expect((await q.target()).head).toBe(base);

    q.scheduler.advanceBy(1_000);
    await q.engine.settle();
    expect(q.pr(1).state).toBe('MERGED');
    expect((await q.target()).head).toBe(run.testBranchSha);
    expect(injected.seen).toEqual([1, 2, 3, 1]);
  });

  test('building a test branch survives a failing merge-tree', async () => {
    const injected = fault((command) => command.args[0] === 'merge-tree', 1);
    const q = (queue = await GitQueue.create({ runner: { beforeRun: injected.beforeRun } }));
    await q.create({ requiredStatuses: ['ci'] });
    const base = await q.clone.commit('Initial', { 'README.md': 'hello\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    // Readiness ran merge-tree first: its first attempt failed and was retried.
    expect(injected.seen.slice(0, 2)).toEqual([1, 2]);
    expect(q.runOf(1).testBranchSha).toMatch(/^[0-9a-f]{40}$/);
    expect(q.errors).toEqual([]);
  });
});

describe('the git runner', () => {
  test('operations on one repository run one at a time; other repositories do not wait', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'greenline-runner-'));
    try {
      const runner = new GitRunner();
      const events: string[] = [];
      let releaseFirst!: () => void;
      const firstHolds = new Promise<void>((resolve) => (releaseFirst = resolve));
      const first = runner.exclusive(join(dir, 'a.git'), async () => {
        events.push('a1 start');
        await firstHolds;
        events.push('a1 end');
      });
      const second = runner.exclusive(join(dir, 'a.git'), async () => {
        events.push('a2 start');
      });
      const other = runner.exclusive(join(dir, 'b.git'), async () => {
        events.push('b start');
      });
      await other;
      expect(events).toEqual(['a1 start', 'b start']);
      releaseFirst();
      await Promise.all([first, second]);
      expect(events).toEqual(['a1 start', 'b start', 'a1 end', 'a2 start']);

      // A failure inside an exclusive section releases the repository.
      await expect(runner.exclusive(join(dir, 'a.git'), async () => Promise.reject(new Error('boom')))).rejects.toThrow(
        'boom',
      );
      expect(await runner.exclusive(join(dir, 'a.git'), async () => 'next')).toBe('next');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('runs git with arguments, never a shell; a failure after every attempt says what failed', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'greenline-runner-'));
    try {
      const runner = new GitRunner({ attempts: 2, retryDelayMs: 1 });
      await runner.run({ gitDir: join(dir, 'r.git'), args: ['init', '--quiet', '--bare'] });
      const weird = '$(touch pwned); echo';
      await expect(runner.run({ gitDir: join(dir, 'r.git'), args: ['rev-parse', '--verify', weird] })).rejects.toThrow(
        /exited with 128/,
      );
      const out = await runner.run({ gitDir: join(dir, 'r.git'), args: ['rev-parse', '--is-bare-repository'] });
      expect(out.text).toBe('true');
      await expect(rm(join(process.cwd(), 'pwned'))).rejects.toThrow();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
