/**
 * The local git host: what a readiness check, a test branch and a merge cost on a real repository (each is a few
 * git processes). The baseline is one `git rev-parse`, the cost of a single git process on this machine. Runs alone
 * with `npx tsx bench/localGit.ts`, or within `npm run bench`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { gitEnvironment } from '../engine/providers/local/gitRunner.js';
import { LocalGitHost } from '../engine/providers/local/localGitHost.js';
import type { MergeMethod } from '../engine/model/queues.js';
import { report, type Figure } from './measure.js';

const exec = promisify(execFile);
const REPO = { host: 'bench.local', owner: 'acme', name: 'widgets' };
/** The local host's isolating environment (gitRunner.ts), with the bench's identities. */
const IDENTITY = {
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (await exec('git', args, { cwd, env: gitEnvironment({ ...IDENTITY, HOME: cwd }) })).stdout.trim();
}

/** Times `operations` calls of `body` (after one warm-up call); each call may do its own untimed preparation. */
async function timed(
  name: string,
  operations: number,
  body: (i: number, clock: { start(): void; stop(): void }) => Promise<void>,
): Promise<Figure> {
  let total = 0n;
  let started = 0n;
  const clock = {
    start: () => void (started = process.hrtime.bigint()),
    stop: () => void (total += process.hrtime.bigint() - started),
  };
  await body(-1, { start: () => undefined, stop: () => undefined });
  for (let i = 0; i < operations; i++) await body(i, clock);
  return { name, operations, seconds: Number(total) / 1e9 };
}

export async function benchLocalGit(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-bench-git-'));
  try {
    const host = new LocalGitHost({ dataDir: join(dir, 'data') });
    await host.prepareRepository(REPO, 'main');
    const remote = host.repositoryPath(REPO);
    const work = join(dir, 'work');
    await mkdir(work);
    await git(work, 'init', '--quiet', '--initial-branch=main');
    // A base of 200 files; each PR changes one line of a shared file (far from the others) and adds a file.
    for (let file = 0; file < 200; file++) await writeFile(join(work, `file${file}.txt`), `${'line\n'.repeat(50)}`);
    const shared = Array.from({ length: 400 }, (_, line) => `line ${line}`);
    await writeFile(join(work, 'shared.txt'), `${shared.join('\n')}\n`);
    await git(work, 'add', '--all');
    await git(work, 'commit', '--quiet', '-m', 'base');
    const base = await git(work, 'rev-parse', 'HEAD');
    await git(work, 'push', '--quiet', remote, 'HEAD:refs/heads/main');
    const PRS = 120;
    const heads: string[] = [];
    for (let number = 1; number <= PRS; number++) {
      await git(work, 'checkout', '--quiet', '--detach', base);
      const lines = [...shared];
      lines[(number * 3) % lines.length] = `changed by ${number}`;
      await writeFile(join(work, 'shared.txt'), `${lines.join('\n')}\n`);
      await writeFile(join(work, `pr${number}.txt`), `${number}\n`);
      await git(work, 'add', '--all');
      await git(work, 'commit', '--quiet', '-m', `PR ${number}`);
      await writeFile(join(work, `pr${number}-b.txt`), `${number}\n`);
      await git(work, 'add', '--all');
      await git(work, 'commit', '--quiet', '-m', `PR ${number}, second commit`);
      heads.push(await git(work, 'rev-parse', 'HEAD'));
    }
    const refs = heads.map((head, index) => `${head}:refs/pull/${index + 1}/head`);
    await git(work, 'push', '--quiet', remote, ...refs);
    const pr = (number: number) => ({ number, sha: heads[number - 1] as string });
    let run = 0;
    const build = (pullRequests: { number: number; sha: string }[], mergeMethod: MergeMethod, baseSha: string) =>
      host.buildTestBranch({
        repo: REPO,
        targetBranch: 'main',
        runId: `tr_bench_${run++}`,
        baseSha,
        pullRequests,
        mergeMethod,
      });

    const baseline = await timed('one git process (rev-parse)', 50, async (_, clock) => {
      clock.start();
      await git(work, '--git-dir', remote, 'rev-parse', 'main');
      clock.stop();
    });
    const figures: Figure[] = [];
    figures.push(
      await timed('readiness check of a PR (mergeability, config, facts)', 30, async (i, clock) => {
        clock.start();
        await host.pullRequest(REPO, (i % PRS) + 1, 'main');
        clock.stop();
      }),
    );
    for (const method of ['merge_commit', 'squash', 'rebase'] as const) {
      for (const size of [1, 10]) {
        figures.push(
          await timed(`build a test branch of ${size} PR(s), ${method}`, 10, async (i, clock) => {
            const first = ((i + 1) * size) % (PRS - size);
            const prs = Array.from({ length: size }, (_, k) => pr(first + k + 1));
            clock.start();
            const result = await build(prs, method, base);
            clock.stop();
            if (!result.ok) throw new Error(result.reason);
          }),
        );
      }
    }
    // Merges move main: each builds on the current head first (untimed).
    let next = 1;
    const head = async () => git(work, '--git-dir', remote, 'rev-parse', 'main');
    /** The merge of PR `number`, tested on `testBranchSha`, expecting main at `expectedHead`. */
    const mergeRequest = (number: number, expectedHead: string, testBranchSha: string) => ({
      repo: REPO,
      targetBranch: 'main',
      expectedHead,
      pullRequest: { ...pr(number), title: '' },
      testBranchSha,
      mergeMethod: 'merge_commit' as const,
    });
    figures.push(
      await timed('merge a PR tested on the current head (fast-forward)', 20, async (_, clock) => {
        const expectedHead = await head();
        const number = next++;
        const built = await build([pr(number)], 'merge_commit', expectedHead);
        if (!built.ok) throw new Error(built.reason);
        clock.start();
        const merged = await host.merge(mergeRequest(number, expectedHead, built.sha));
        clock.stop();
        if (!merged.ok) throw new Error(merged.reason);
      }),
    );
    figures.push(
      await timed('merge the second PR of a predictive run (tested trees replayed)', 20, async (_, clock) => {
        const expectedHead = await head();
        const [a, b] = [next++, next++];
        const first = await build([pr(a)], 'merge_commit', expectedHead);
        const both = await build([pr(a), pr(b)], 'merge_commit', expectedHead);
        if (!first.ok || !both.ok) throw new Error('not built');
        const mergedA = await host.merge(mergeRequest(a, expectedHead, first.sha));
        if (!mergedA.ok) throw new Error(mergedA.reason);
        clock.start();
        const merged = await host.merge(mergeRequest(b, mergedA.head, both.sha));
        clock.stop();
        if (!merged.ok) throw new Error(merged.reason);
      }),
    );
    report('local git host (200-file repository; PRs of two commits touching one shared file)', baseline, figures);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`node ${process.version}, ${process.platform}/${process.arch}`);
  await benchLocalGit();
}
