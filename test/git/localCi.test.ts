/** The built-in CI (GREENLINE_LOCAL_CI): commands from .greenline.yaml run on each test branch and report statuses. */
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { buildServer } from '../../api/server.js';
import { syncConfiguredTokens } from '../../engine/tokens.js';
import { alive, GitQueue, KEY } from './helpers.js';

let queue: GitQueue | undefined;
const gates: string[] = [];
afterEach(async () => {
  // Commands waiting on a gate end whatever happened.
  for (const gate of gates.splice(0)) await writeFile(gate, '').catch(() => undefined);
  await queue?.close();
  queue = undefined;
});

const TOKENS = { acme: 'acme-token-0123456789abcdef', globex: 'globex-token-0123456789abcdef' };

function yaml(requiredStatuses: string[], ci: Record<string, string>): string {
  return `required_statuses: ${JSON.stringify(requiredStatuses)}\nci:\n${Object.entries(ci)
    .map(([name, command]) => `  ${name}: ${JSON.stringify(command)}`)
    .join('\n')}\n`;
}

function check(q: GitQueue, runId: string, context: string) {
  return q.run(runId).statusChecks.find((status) => status.context === context);
}

describe('the built-in CI runner', () => {
  test('a passing and a failing command report their statuses; logs are kept and served to the owner only', async () => {
    const q = (queue = await GitQueue.create({ localCi: true }));
    await q.create();
    const config = yaml(['build', 'lint'], {
      build: 'test -f a.txt && echo "built $GREENLINE_STATUS"',
      lint: 'echo "lint: 2 problems" >&2; exit 3',
    });
    const base = await q.clone.commit('Initial', { '.greenline.yaml': config });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    const runId = q.pr(1).runId as string;
    await q.until(
      () => q.pr(1).state,
      (state) => state === 'FAILED',
      'PR 1 fails',
    );
    await q.until(
      () => check(q, runId, 'build')?.state,
      (state) => state === 'success',
      'build reported',
    );
    expect(q.pr(1).reason).toBe(`run ${runId} failed: required status lint reported failure`);
    expect(check(q, runId, 'lint')).toMatchObject({
      state: 'failure',
      description: 'exited with 3',
      url: `http://127.0.0.1:8080/ci-logs/${runId}/lint`,
    });
    expect(check(q, runId, 'build')).toMatchObject({
      state: 'success',
      description: 'passed',
      url: `http://127.0.0.1:8080/ci-logs/${runId}/build`,
    });

    syncConfiguredTokens(
      q.store,
      Object.entries(TOKENS).map(([org, token]) => ({ org, token })),
      new Date().toISOString(),
    );
    const app = await buildServer({ engine: q.engine, ciLogs: q.ci! });
    try {
      const get = (path: string, token?: string) =>
        app.inject({ method: 'GET', url: path, headers: token === undefined ? {} : { 'x-api-token': token } });
      const build = await get(`/ci-logs/${runId}/build`, TOKENS.acme);
      expect(build.statusCode).toBe(200);
      expect(build.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(build.body).toBe('$ test -f a.txt && echo "built $GREENLINE_STATUS"\nbuilt build\n');
      expect((await get(`/ci-logs/${runId}/lint`, TOKENS.acme)).body).toContain('lint: 2 problems');
      expect((await get(`/ci-logs/${runId}/lint`, TOKENS.globex)).statusCode).toBe(404);
      expect((await get(`/ci-logs/${runId}/lint`)).statusCode).toBe(401);
      expect((await get(`/ci-logs/${runId}/deploy`, TOKENS.acme)).statusCode).toBe(404);
      expect((await get(`/ci-logs/..%2F..%2Fstore/lint`, TOKENS.acme)).statusCode).toBe(404);
    } finally {
      await app.close();
    }

    // The configuration on the target changes; the next PR passes both and merges.
    await q.clone.checkout(base);
    const fixed = await q.clone.commit('Relax lint', {
      '.greenline.yaml': yaml(['build', 'lint'], { build: 'test -f b.txt', lint: 'true' }),
    });
    await q.clone.pushBase();
    await q.clone.pr(2, fixed, { 'b.txt': 'b\n' });
    await q.submit(2);
    const run2 = q.pr(2).runId as string;
    await q.until(
      () => q.pr(2).state,
      (state) => state === 'MERGED',
      'PR 2 merges',
    );
    expect((await q.target()).tree).toBe(await q.treeOf(q.run(run2).testBranchSha));
    // Worktrees are gone once their commands ended.
    await q.until(
      () => q.clone.bare('worktree', 'list', '--porcelain'),
      (list) => list.split('\n\n').length === 1,
      'worktrees removed',
    );
    expect(q.errors).toEqual([]);
  });

  test('a crash during a run: finished commands are reported again, the one that was running runs again', async () => {
    const q = (queue = await GitQueue.create({ localCi: true, lmdb: true }));
    const gate = join(q.root, 'gate');
    const count = join(q.root, 'count');
    gates.push(gate);
    await q.create();
    const config = yaml(['quick', 'slow'], {
      quick: `echo ran >> '${count}'`,
      slow: `echo started; while [ ! -f '${gate}' ]; do sleep 0.05; done; echo slow done`,
    });
    const base = await q.clone.commit('Initial', { '.greenline.yaml': config });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    const runId = q.pr(1).runId as string;
    await q.until(
      () => check(q, runId, 'quick')?.state,
      (state) => state === 'success',
      'quick passes',
    );
    await q.until(
      () => check(q, runId, 'slow')?.description ?? '',
      (text) => text.startsWith('running'),
      'slow runs',
    );
    const pidFile = join(q.dataDir, 'local-ci', runId, 'slow.pid');
    const pid = Number(
      await q.until(
        () => readFile(pidFile, 'utf8').catch(() => ''),
        (text) => text !== '',
        'pid file',
      ),
    );
    expect(alive(pid)).toBe(true);

    await q.crash();
    expect(q.pr(1)).toMatchObject({ state: 'TESTING', runId });
    await q.until(
      () => alive(pid),
      (isAlive) => !isAlive,
      'the command left by the crash is killed',
    );
    await q.until(
      () => readFile(pidFile, 'utf8').catch(() => ''),
      (text) => text !== '' && Number(text) !== pid,
      'slow runs again',
    );
    await writeFile(gate, '');
    await q.until(
      () => q.pr(1).state,
      (state) => state === 'MERGED',
      'PR 1 merges',
    );
    expect(q.pr(1).runId).toBe(runId);
    expect(await readFile(count, 'utf8')).toBe('ran\n');
    expect(await readFile(join(q.dataDir, 'local-ci', runId, 'slow.log'), 'utf8')).toContain('slow done');
    expect(q.errors).toEqual([]);
  });

  test("a command still running at the queue's testing timeout is stopped with its run", async () => {
    const q = (queue = await GitQueue.create({ localCi: true }));
    const gate = join(q.root, 'gate');
    gates.push(gate);
    await q.create({ testingTimeoutMinutes: 1 });
    const base = await q.clone.commit('Initial', {
      '.greenline.yaml': yaml(['slow'], { slow: `sleep 0.01 && while [ ! -f '${gate}' ]; do sleep 0.05; done` }),
    });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'a.txt': 'a\n' });
    await q.submit(1);
    const runId = q.pr(1).runId as string;
    const pidFile = join(q.dataDir, 'local-ci', runId, 'slow.pid');
    const pid = Number(
      await q.until(
        () => readFile(pidFile, 'utf8').catch(() => ''),
        (text) => text !== '',
        'slow runs',
      ),
    );

    q.scheduler.advanceBy(61_000);
    await q.engine.settle();
    expect(q.pr(1).state).toBe('CANCELLED');
    expect(q.pr(1).reason).toMatch(/no result before the testing timeout/);
    await q.until(
      () => alive(pid),
      (isAlive) => !isAlive,
      'the command is killed',
    );
    await q.until(
      () => readdir(join(q.dataDir, 'local-ci', 'work', runId)).catch(() => []),
      (left) => left.length === 0,
      'worktree removed',
    );
    expect(existsSync(join(q.dataDir, 'local-ci', runId, 'slow.outcome.json'))).toBe(false);
    expect(q.errors).toEqual([]);
  });

  test('an invalid configuration fails the run with a greenline/config status; PRs are not ready while it is invalid', async () => {
    const q = (queue = await GitQueue.create({ localCi: true }));
    await q.create({ state: 'paused' });
    const base = await q.clone.commit('Initial', { '.greenline.yaml': 'ci: {build: "true"}\n' });
    await q.clone.pushBase();
    await q.clone.pr(1, base, { 'b.txt': 'b\n' });
    await q.submit(1);
    expect(q.pr(1).state).toBe('PENDING');
    // The configuration on main breaks (a direct push) while PR 1 waits; its run, on the head the queue knew, passes,
    // the merge finds main moved, and the run on the new head cannot read its configuration.
    await q.clone.checkout(base);
    const broken = await q.clone.commit('Break the config', { '.greenline.yaml': 'required_statuses: build\n' });
    await q.clone.pushBase();
    q.engine.updateQueue(KEY, { state: 'running' });
    await q.until(
      () => q.pr(1).state,
      (state) => state === 'FAILED',
      'PR 1 fails',
    );
    const run = q.run(q.pr(1).runId as string);
    expect(run.baseSha).toBe(broken);
    expect(check(q, run.id, 'greenline/config')?.state).toBe('error');
    expect(check(q, run.id, 'greenline/config')?.description).toMatch(
      /^\.greenline\.yaml is invalid: required_statuses: /,
    );

    await q.clone.pr(2, broken, { 'c.txt': 'c\n' });
    await q.submit(2);
    expect(q.pr(2).state).toBe('NOT_READY');
    expect(q.timeline(2).at(-1)?.message).toMatch(/\.greenline\.yaml is invalid: required_statuses: .* \(on main\)$/);
    expect(q.errors).toEqual([]);
  });
});
