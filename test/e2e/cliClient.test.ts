/**
 * The client commands against a fresh server, as a person at a terminal uses them: `greenline login` through the
 * device flow (the code approved in the dashboard, in Chromium), then `greenline queue …` and `greenline pr …`
 * with the token the login kept, and every output ending with a newline.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumPath, launch, SKIP_MESSAGE } from '../web/browser.js';
import { eventually, runCli, type Running, spawnCli, startServer, stop } from './process.js';

const TOKEN = 'acme-cli-client-token-0123456789';
const REPO = 'github.com/acme/widgets';
const CHROMIUM = chromiumPath();
if (CHROMIUM === undefined) console.warn(SKIP_MESSAGE);

let dataDir = '';
let configDir = '';
let server: Running;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'greenline-cli-client-'));
  configDir = await mkdtemp(join(tmpdir(), 'greenline-cli-config-'));
  server = await startServer({
    GREENLINE_DATA: dataDir,
    GREENLINE_PROVIDER: 'sim',
    GREENLINE_API_TOKENS: `acme:${TOKEN}`,
  });
});

afterAll(async () => {
  if (server !== undefined) await stop(server);
  await rm(dataDir, { recursive: true, force: true });
  await rm(configDir, { recursive: true, force: true });
});

/** A loopback port nothing listens on (one the system gave and took back). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** A client command with the service's URL and the token in the environment. */
const client = (args: string[], env: Record<string, string> = { GREENLINE_TOKEN: TOKEN }) =>
  runCli([...args, '--repo', REPO], { GREENLINE_URL: server.url, GREENLINE_CONFIG_DIR: configDir, ...env });

describe('client commands against a fresh server', () => {
  test('queue create and show, pr submit, show, restart, cancel; pause, drain, resume', async () => {
    const created = await client(['queue', 'create']);
    expect(created).toMatchObject({ code: 0, stdout: '{}\n' });
    const submitted = await client(['pr', 'submit', '42', '--priority', 'high']);
    expect(submitted).toMatchObject({ code: 0, stdout: '{}\n' });
    const shown = await eventually(
      () => client(['pr', 'show', '42']),
      (result) => result.code === 0 && JSON.parse(result.stdout).state === 'TESTING',
    );
    expect(JSON.parse(shown.stdout)).toMatchObject({
      prNumber: 42,
      priorityName: 'high',
      isCurrentlySubmittedToQueue: true,
    });
    expect(shown.stdout.endsWith('}\n')).toBe(true);
    expect((await client(['pr', 'restart', '42'])).code).toBe(0);
    const queue = JSON.parse((await client(['queue', 'show'])).stdout);
    expect(queue.enqueuedPullRequests.map((pr: { prNumber: number }) => pr.prNumber)).toEqual([42]);
    expect((await client(['pr', 'cancel', '42'])).code).toBe(0);
    expect(JSON.parse((await client(['queue', 'pause'])).stdout).state).toBe('paused');
    expect(JSON.parse((await client(['queue', 'drain'])).stdout).state).toBe('paused');
    expect(JSON.parse((await client(['queue', 'resume'])).stdout).state).toBe('running');
  });

  test('refusals: the API’s status and message on stderr, exit 1; a bad command line, exit 2', async () => {
    const missing = await client(['pr', 'cancel', '7']);
    expect(missing.code).toBe(1);
    expect(missing.stdout).toBe('');
    expect(missing.stderr).toMatch(/^greenline: 404 pr_not_queued: .*#7.*\n$/);
    const noToken = await client(['queue', 'show'], {});
    expect(noToken.code).toBe(1);
    expect(noToken.stderr).toContain('greenline login');
    const usage = await client(['pr', 'merge', '7']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/pr takes one of submit, cancel, restart, show/);
  });

  test('--version and --help end with a newline', async () => {
    const version = await runCli(['--version'], {});
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+\n$/);
    const help = await runCli(['--help'], {});
    expect(help.stdout).toContain('greenline pr submit|cancel|restart|show NUMBER');
    expect(help.stdout).toContain('greenline login');
    expect(help.stdout.endsWith('\n')).toBe(true);
  });
});

describe.skipIf(CHROMIUM === undefined)('greenline login: the device flow end to end', () => {
  test('the code shown in the terminal, approved in the dashboard, gives the CLI a token it keeps and uses', async () => {
    const login = spawnCli(['login', '--url', server.url, '--scope', 'write'], { GREENLINE_CONFIG_DIR: configDir });
    const prompt = await eventually(
      async () => login.stderr(),
      (text) => /confirm the code [A-Z]{4}-[A-Z]{4}/.test(text),
    );
    const link = /open (http:\/\/\S+)/.exec(prompt)![1]!;
    const code = /confirm the code ([A-Z]{4}-[A-Z]{4})/.exec(prompt)![1]!;
    expect(link).toBe(`${server.url}/device?user_code=${code}`);

    const browser = await launch(CHROMIUM!);
    try {
      const page = await browser.context.newPage();
      // Not signed in yet: the link leads through the dashboard's sign-in and back to the code.
      await page.goto(link);
      await page.getByLabel('API token').fill(TOKEN);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByLabel('Code shown in the terminal').waitFor();
      expect(await page.getByLabel('Code shown in the terminal').inputValue()).toBe(code);
      await page.getByLabel('Scope of its token').selectOption('write');
      await page.getByRole('button', { name: 'Approve' }).click();
      await page.getByText('Approved').waitFor();
      expect(browser.offLoopback).toEqual([]);
    } finally {
      await browser.close();
    }

    const { code: exit } = await login.exited;
    expect(exit, login.stderr()).toBe(0);
    expect(login.stdout()).toBe(`signed in to ${server.url}: organization acme, scope write\n`);
    const file = join(configDir, 'credentials.json');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const kept = JSON.parse(await readFile(file, 'utf8'));
    expect(kept.current).toBe(server.url);

    // No URL and no token in the environment: the login's are used.
    const shown = await runCli(['queue', 'show', '--repo', REPO], { GREENLINE_CONFIG_DIR: configDir });
    expect(shown.code, shown.stderr).toBe(0);
    expect(JSON.parse(shown.stdout)).toMatchObject({ branch: 'main' });
    // Scope write: a queue setting is beyond it.
    const pause = await runCli(['queue', 'pause', '--repo', REPO], { GREENLINE_CONFIG_DIR: configDir });
    expect(pause.code).toBe(1);
    expect(pause.stderr).toMatch(/403 insufficient_scope/);
    expect((await runCli(['logout'], { GREENLINE_CONFIG_DIR: configDir })).code).toBe(0);
    // Signed out: no service is known any more, and the default one is not there: said in a line, exit 1.
    const closed = await freePort();
    const after = await runCli(['queue', 'show', '--repo', REPO, '--url', `http://127.0.0.1:${closed}`], {
      GREENLINE_CONFIG_DIR: configDir,
    });
    expect(after.code).toBe(1);
    expect(after.stderr).toBe(
      `greenline: cannot reach http://127.0.0.1:${closed}: ECONNREFUSED (set GREENLINE_URL or pass --url)\n`,
    );
  });
});
