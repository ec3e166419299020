/** `greenline serve` with its defaults: the local git host, here with the built-in CI, as a real process. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { call, eventually, startServer, stop, withDataDir, type Running } from '../e2e/process.js';
import { Clone } from './helpers.js';

const TOKEN = 'acme-secret-token-123456';
const QUEUE = { repo: { host: 'github.com', owner: 'acme', name: 'widgets' }, targetBranch: 'main' };
const running: Running[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
});

describe('greenline serve on real repositories', () => {
  test('createQueue makes the repository; a pushed PR is tested by the built-in CI and merged', async () => {
    await withDataDir(async (dir) => {
      const server = await startServer({
        GREENLINE_DATA: dir,
        GREENLINE_API_TOKENS: `acme:${TOKEN}`,
        GREENLINE_LOCAL_CI: '1',
      });
      running.push(server);
      expect(server.stdout()).toContain(`repositories in ${join(dir, 'repos')}, built-in CI`);
      const remote = join(dir, 'repos', 'github.com', 'acme', 'widgets.git');
      expect((await call(server, '/v1/createQueue', TOKEN, QUEUE)).status).toBe(200);
      expect(existsSync(join(remote, 'HEAD'))).toBe(true);

      const clone = await Clone.create(join(dir, 'clone'), remote);
      const base = await clone.commit('Initial', {
        '.greenline.yaml': 'required_statuses: [check]\nci:\n  check: test -f a.txt && echo checked\n',
      });
      await clone.pushBase();
      await clone.pr(1, base, { 'a.txt': 'a\n' }, 'Add a');
      expect((await call(server, '/v1/submitPullRequest', TOKEN, { ...QUEUE, pr: { number: 1 } })).status).toBe(200);
      const pr = await eventually(
        async () =>
          (
            await call(server, '/v1/getSubmittedPullRequest', TOKEN, { ...QUEUE, pr: { number: 1 } })
          ).json() as Promise<{ state: string; testRunId: string; prTitle: string }>,
        (value) => value.state === 'MERGED',
      );
      expect(pr.prTitle).toBe('Add a');
      const run = (await (
        await call(server, '/v1/getMergeQueueTestingDetails', TOKEN, { ...QUEUE, testRunId: pr.testRunId })
      ).json()) as {
        testBranchSha: string;
        requiredStatusesSource: string;
        statusChecks: { context: string; state: string; url: string }[];
      };
      expect(run.requiredStatusesSource).toBe('service_config');
      expect(run.statusChecks).toEqual([expect.objectContaining({ context: 'check', state: 'SUCCESS' })]);
      const url = run.statusChecks[0]!.url;
      expect(url).toBe(`${server.url}/ci-logs/${pr.testRunId}/check`);
      const log = await fetch(url, { headers: { 'x-api-token': TOKEN } });
      expect(log.status).toBe(200);
      expect(await log.text()).toBe('$ test -f a.txt && echo checked\nchecked\n');
      expect((await fetch(url)).status).toBe(401);
      expect(await clone.bare('rev-parse', 'main^{tree}')).toBe(
        await clone.bare('rev-parse', `${run.testBranchSha}^{tree}`),
      );
      expect(await stop(server)).toEqual({ code: 0, signal: null });
    });
  });
});
