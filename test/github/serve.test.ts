/** `greenline serve` in GitHub mode as a real process, against the GitHub stand-in: the wiring of cli/serve.ts. */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { call, eventually, runCli, startServer, stop, withDataDir, type Running } from '../e2e/process.js';
import { keys, SECRET } from './harness.js';
import { GitHubStandIn, OWNER, REPO } from './standIn.js';
import { example, signedDelivery } from './webhookExamples.js';

const TOKEN = 'acme-secret-token-123456';
const QUEUE = { repo: { host: 'github.com', owner: OWNER, name: REPO }, targetBranch: 'main' };
const running: Running[] = [];
const standIns: GitHubStandIn[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((server) => stop(server, 'SIGKILL')));
  for (const github of standIns.splice(0)) {
    await github.close();
    expect(github.violations).toEqual([]);
  }
});

describe('greenline serve with GREENLINE_PROVIDER=github', () => {
  test('a signed comment queues a PR; the check suite passes it; main moves to the tested commit', async () => {
    const github = new GitHubStandIn(keys.publicKey);
    standIns.push(github);
    await github.listen();
    github.push('main', { 'README.md': 'hello\n' }, 'Initial');
    github.openPull(1, 'Add a.txt', { 'a.txt': 'a\n' });
    await withDataDir(async (dir) => {
      const keyFile = join(dir, 'app.pem');
      await writeFile(keyFile, keys.privateKey);
      const server = await startServer({
        GREENLINE_DATA: dir,
        GREENLINE_API_TOKENS: `acme:${TOKEN}`,
        GREENLINE_PROVIDER: 'github',
        GREENLINE_GITHUB_APP_ID: '1',
        GREENLINE_GITHUB_PRIVATE_KEY_FILE: keyFile,
        GREENLINE_GITHUB_WEBHOOK_SECRET: SECRET,
        GREENLINE_GITHUB_API_URL: github.url,
        GREENLINE_GITHUB_HOST: 'github.com',
      });
      running.push(server);
      expect(server.stdout()).toContain(`GitHub App 1 on ${github.url}, webhooks at /github/webhooks`);
      expect((await call(server, '/v1/createQueue', TOKEN, QUEUE)).status).toBe(200);

      const comment = example('issue_comment', 'created');
      comment.issue.number = 1;
      comment.issue.pull_request = { url: `${github.url}/repos/${OWNER}/${REPO}/pulls/1` };
      comment.comment.body = '/greenline merge';
      const post = async (name: string, payload: unknown) => {
        const delivery = await signedDelivery(SECRET, name, payload);
        return fetch(`${server.url}/github/webhooks`, {
          method: 'POST',
          headers: delivery.headers,
          body: delivery.body,
        });
      };
      expect((await post('issue_comment', comment)).status).toBe(202);
      const read = async () =>
        (await call(server, '/v1/getSubmittedPullRequest', TOKEN, { ...QUEUE, pr: { number: 1 } })).json() as Promise<{
          state: string;
          testRunId: string;
        }>;
      const testing = await eventually(read, (pr) => pr.state === 'TESTING').catch((error: Error) => {
        throw new Error(
          `${error.message}\n${server.stderr().slice(-3000)}\n${JSON.stringify(github.exchanges.slice(-10))}`,
        );
      });
      // TESTING comes first; the test branch is built right after.
      const run = await eventually(
        async () =>
          (
            await call(server, '/v1/getMergeQueueTestingDetails', TOKEN, { ...QUEUE, testRunId: testing.testRunId })
          ).json() as Promise<{ testBranchSha: string }>,
        (details) => details.testBranchSha !== '',
      );
      expect(github.head(`greenline/main/${testing.testRunId}`)).toBe(run.testBranchSha);

      const suite = example('check_suite', 'completed');
      suite.check_suite.head_sha = run.testBranchSha;
      suite.check_suite.conclusion = 'success';
      expect((await post('check_suite', suite)).status).toBe(202);
      await eventually(read, (pr) => pr.state === 'MERGED');
      expect(github.head('main')).toBe(run.testBranchSha);
      expect(
        (
          await fetch(`${server.url}/github/webhooks`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
          })
        ).status,
      ).toBe(401);
      expect(await stop(server)).toEqual({ code: 0, signal: null });
    });
  });

  test("without the App's credentials it refuses to start and says what is missing", async () => {
    await withDataDir(async (dir) => {
      const result = await runCli(['serve'], { GREENLINE_DATA: dir, GREENLINE_PROVIDER: 'github', PORT: '0' });
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        'GREENLINE_PROVIDER=github needs GREENLINE_GITHUB_APP_ID, GREENLINE_GITHUB_PRIVATE_KEY_FILE, GREENLINE_GITHUB_WEBHOOK_SECRET',
      );
    });
  });
});
