import { request } from 'node:http';
import { afterEach, describe, expect, test } from 'vitest';
import { call, eventually, runCli, startServer, stop, withDataDir, type Running } from './process.js';

const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
});
async function start(env: Record<string, string>) {
  const server = await startServer(env);
  running.push(server);
  return server;
}

function bootstrapToken(stdout: string): string {
  const match = /^\s+(glt_[A-Za-z0-9_-]+)$/m.exec(stdout);
  if (!match) throw new Error(`no token printed:\n${stdout}`);
  return match[1]!;
}

describe('greenline serve', () => {
  test('first start prints a token once; data and tokens survive a restart; SIGTERM exits 0', async () => {
    await withDataDir(async (dir) => {
      const first = await start({ GREENLINE_DATA: dir });
      const token = bootstrapToken(first.stdout());
      expect((await call(first, '/healthz', undefined)).status).toBe(200);
      expect((await call(first, '/v1/getQueue', undefined, QUEUE)).status).toBe(401);
      expect(
        (await call(first, '/v1/createQueue', token, { ...QUEUE, concurrency: 4, requiredStatuses: ['ci'] })).status,
      ).toBe(200);
      expect(await stop(first)).toEqual({ code: 0, signal: null });
      expect(first.stdout()).toContain('stopped');

      const second = await start({ GREENLINE_DATA: dir });
      expect(second.stdout()).not.toContain('glt_');
      const queue = await (await call(second, '/v1/getQueue', token, QUEUE)).json();
      expect(queue).toMatchObject({
        concurrency: 4,
        requiredStatuses: ['ci'],
        requiredStatusesSource: 'merge_instance',
      });
      expect(await stop(second, 'SIGINT')).toEqual({ code: 0, signal: null });
    });
  });

  test('token create works while the server runs; organizations are isolated', async () => {
    await withDataDir(async (dir) => {
      const server = await start({ GREENLINE_DATA: dir });
      const defaultToken = bootstrapToken(server.stdout());
      const created = await runCli(['token', 'create', '--org', 'globex'], { GREENLINE_DATA: dir });
      expect(created.code).toBe(0);
      const globexToken = created.stdout.trim();
      expect(globexToken).toMatch(/^glt_/);

      expect((await call(server, '/v1/createQueue', globexToken, QUEUE)).status).toBe(200);
      expect((await call(server, '/v1/getQueue', defaultToken, QUEUE)).status).toBe(404);
      expect((await call(server, '/v1/getQueue', globexToken, QUEUE)).status).toBe(200);

      const listed = await runCli(['token', 'list', '--data', dir], {});
      expect(listed.stdout).toMatch(/\tdefault\tbootstrap\t/);
      expect(listed.stdout).toMatch(/\tglobex\tcli\t/);
      expect(listed.stdout).not.toContain('glt_');
      const globexId = /^(tok_\w+)\tglobex/m.exec(listed.stdout)![1]!;
      expect((await runCli(['token', 'revoke', globexId], { GREENLINE_DATA: dir })).code).toBe(0);
      expect((await call(server, '/v1/getQueue', globexToken, QUEUE)).status).toBe(401);
      expect((await runCli(['token', 'create'], { GREENLINE_DATA: dir })).code).toBe(2);
      expect((await runCli(['token', 'create', '--org', 'bad org'], { GREENLINE_DATA: dir })).code).toBe(2);
    });
  });

  test('GREENLINE_API_TOKENS configures tokens instead of a bootstrap token; a bad value stops the start', async () => {
    await withDataDir(async (dir) => {
      const tokens = 'acme:acme-secret-token-123456,globex:globex-secret-token-123456';
      const server = await start({ GREENLINE_DATA: dir, GREENLINE_API_TOKENS: tokens });
      expect(server.stdout()).not.toContain('glt_');
      expect((await call(server, '/v1/createQueue', 'acme-secret-token-123456', QUEUE)).status).toBe(200);
      expect((await call(server, '/v1/getQueue', 'globex-secret-token-123456', QUEUE)).status).toBe(404);
      await stop(server);
      // A token dropped from the configuration stops working at the next start.
      const again = await start({ GREENLINE_DATA: dir, GREENLINE_API_TOKENS: 'acme:acme-secret-token-123456' });
      expect((await call(again, '/v1/getQueue', 'globex-secret-token-123456', QUEUE)).status).toBe(401);
      expect((await call(again, '/v1/getQueue', 'acme-secret-token-123456', QUEUE)).status).toBe(200);
      await stop(again);
      const bad = await runCli(['serve'], { GREENLINE_DATA: dir, PORT: '0', GREENLINE_API_TOKENS: 'no-colon-here' });
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('GREENLINE_API_TOKENS entry 1');
      const badPort = await runCli(['serve'], { GREENLINE_DATA: dir, PORT: 'eighty' });
      expect(badPort.code).toBe(2);
      expect(badPort.stderr).toContain('PORT');
    });
  });

  test('SIGTERM lets an in-flight request finish and its change is kept', async () => {
    await withDataDir(async (dir) => {
      const server = await start({ GREENLINE_DATA: dir, GREENLINE_API_TOKENS: 'acme:acme-secret-token-123456' });
      const body = JSON.stringify({ ...QUEUE, concurrency: 2 });
      const url = new URL('/v1/createQueue', server.url);
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        const req = request(
          url,
          {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              'x-api-token': 'acme-secret-token-123456',
            },
          },
          (res) => {
            let text = '';
            res.on('data', (chunk: Buffer) => (text += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          },
        );
        req.on('error', reject);
        // Half the body now; the signal arrives while the request is in flight; the rest after.
        req.write(body.slice(0, 20));
        setTimeout(() => {
          server.child.kill('SIGTERM');
          setTimeout(() => req.end(body.slice(20)), 300);
        }, 200);
      });
      expect(await answer).toEqual({ status: 200, text: '{}\n' });
      expect(await server.exited).toEqual({ code: 0, signal: null });
      const after = await start({ GREENLINE_DATA: dir, GREENLINE_API_TOKENS: 'acme:acme-secret-token-123456' });
      expect(await (await call(after, '/v1/getQueue', 'acme-secret-token-123456', QUEUE)).json()).toMatchObject({
        concurrency: 2,
      });
    });
  });

  test('an acknowledged change survives kill -9', async () => {
    await withDataDir(async (dir) => {
      const env = { GREENLINE_DATA: dir, GREENLINE_API_TOKENS: 'acme:acme-secret-token-123456' };
      const server = await start(env);
      for (const branch of ['main', 'release', 'next']) {
        const response = await call(server, '/v1/createQueue', 'acme-secret-token-123456', {
          ...QUEUE,
          targetBranch: branch,
        });
        expect(response.status).toBe(200);
      }
      await stop(server, 'SIGKILL');
      const after = await start(env);
      for (const branch of ['main', 'release', 'next']) {
        expect(
          (await call(after, '/v1/getQueue', 'acme-secret-token-123456', { ...QUEUE, targetBranch: branch })).status,
        ).toBe(200);
      }
    });
  });
});

describe('the merge queue of a real server', () => {
  test('PRs test and merge with the synthetic CI; after kill -9 in-flight runs continue and nothing is lost', async () => {
    await withDataDir(async (dir) => {
      const token = 'acme-secret-token-123456';
      // Runs take about a second; every run passes.
      const env = {
        GREENLINE_DATA: dir,
        GREENLINE_API_TOKENS: `acme:${token}`,
        GREENLINE_PROVIDER: 'sim',
        GREENLINE_SIM_CI: 'pass=1,median=0.03,p90=0.04',
      };
      const server = await start(env);
      expect((await call(server, '/v1/createQueue', token, { ...QUEUE, concurrency: 3 })).status).toBe(200);
      for (const number of [1, 2, 3]) {
        expect((await call(server, '/v1/submitPullRequest', token, { ...QUEUE, pr: { number } })).status).toBe(200);
      }
      const pr = (server: Running, number: number) =>
        call(server, '/v1/getSubmittedPullRequest', token, { ...QUEUE, pr: { number } }).then(
          (response) => response.json() as Promise<{ state: string; testRunId: string }>,
        );
      const testing = await eventually(
        () => pr(server, 3),
        (value) => value.state === 'TESTING',
        5_000,
      );
      await stop(server, 'SIGKILL');

      const after = await start(env);
      expect((await pr(after, 3)).testRunId).toBe(testing.testRunId);
      for (const number of [1, 2, 3])
        await eventually(
          () => pr(after, number),
          (value) => value.state === 'MERGED',
        );
      // The run that was in flight at the kill is the one that merged PR 3.
      expect((await pr(after, 3)).testRunId).toBe(testing.testRunId);
      const run = await (
        await call(after, '/v1/getMergeQueueTestingDetails', token, { ...QUEUE, testRunId: testing.testRunId })
      ).json();
      expect(run).toMatchObject({
        status: 'succeeded',
        statusChecks: [{ context: 'greenline/sim-ci', state: 'SUCCESS' }],
      });
    });
  });
});

describe('greenline command line', () => {
  test('--help lists the commands and variables; --version prints the version; a wrong command exits 2', async () => {
    const help = await runCli(['--help'], {});
    expect(help.code).toBe(0);
    for (const word of [
      'serve',
      'token create --org NAME',
      'token list',
      'token revoke',
      'GREENLINE_DATA',
      'GREENLINE_API_TOKENS',
      'PORT',
      'HOST',
    ]) {
      expect(help.stdout).toContain(word);
    }
    const version = await runCli(['--version'], {});
    expect(version.stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    const wrong = await runCli(['launch'], {});
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown command "launch"');
    expect((await runCli(['serve', '--no-such-option'], {})).code).toBe(2);
  });
});
