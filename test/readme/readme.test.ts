/**
 * The README's examples, run as written: every shell block of README.md in order, in one bash, against a fresh
 * `greenline serve` (built as `npm ci` builds it, started as `npm start` starts it) on a loopback port chosen by the
 * system, with a temporary data folder, home and TMPDIR that are removed afterwards. The blocks the README marks
 * `readme-test: skip` (starting the server, exporting its address and token, the simulator, development commands)
 * are done by this test itself or left out, each for the reason the README gives.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { scriptOf, shellBlocks } from './blocks.js';

const ROOT = new URL('../../', import.meta.url).pathname;

let dir: string;
let server: ChildProcess | undefined;
let serverOut = '';
let url: string;
let token: string;

function baseEnv(): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(dir, 'home'),
    TMPDIR: join(dir, 'tmp'),
    GREENLINE_DATA: join(dir, 'data'),
    LANG: 'C.UTF-8',
  };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-readme-'));
  for (const sub of ['home', 'tmp', 'data']) await mkdir(join(dir, sub));
  // What `npm ci` (its prepare script) and `npm start` do first: the build bin/greenline.js runs.
  execFileSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'tsconfig.build.json'], {
    cwd: ROOT,
  });
  server = spawn(process.execPath, [join(ROOT, 'bin/greenline.js'), 'serve'], {
    cwd: ROOT,
    env: { ...baseEnv(), HOST: '127.0.0.1', PORT: '0', GREENLINE_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout!.on('data', (chunk: Buffer) => (serverOut += chunk.toString()));
  server.stderr!.on('data', (chunk: Buffer) => (serverOut += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      const listening = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serverOut);
      if (listening !== null) return resolve();
      if (server!.exitCode !== null) return reject(new Error(`the server exited:\n${serverOut}`));
      setTimeout(check, 50);
    };
    check();
  });
  url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(serverOut)![1]!;
  token = /^\s+(glt_[A-Za-z0-9_-]+)$/m.exec(serverOut)?.[1] ?? '';
  expect(token, `the first start prints a token:\n${serverOut}`).not.toBe('');
  // No budget of its own: the build and the start wait on a loaded machine as long as the project's budget allows.
});

afterAll(async () => {
  if (server !== undefined && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once('exit', resolve));
    server.kill('SIGTERM');
    await exited;
  }
  await rm(dir, { recursive: true, force: true });
});

describe('README.md', () => {
  test('its shell blocks are found, and every one left out says why', async () => {
    const blocks = shellBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'));
    expect(blocks.filter((block) => block.skip === undefined).length).toBeGreaterThanOrEqual(10);
    for (const block of blocks.filter((candidate) => candidate.skip !== undefined))
      expect(block.skip!.length).toBeGreaterThan(20);
  });

  test('the examples run as written, in order, against a fresh server', async () => {
    // What the README says its examples use.
    const missing = ['bash', 'curl', 'git', 'jq'].filter(
      (tool) => spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0,
    );
    expect(missing, `the README's examples need ${missing.join(', ')}: install them to run this test`).toEqual([]);
    const blocks = shellBlocks(await readFile(join(ROOT, 'README.md'), 'utf8'));
    const script = scriptOf(blocks);
    const env = {
      ...baseEnv(),
      GREENLINE: `${url}/v1`,
      TOKEN: token,
      // The identity git needs to commit, as a user's git configuration gives it.
      GIT_AUTHOR_NAME: 'Reader',
      GIT_AUTHOR_EMAIL: 'reader@example.com',
      GIT_COMMITTER_NAME: 'Reader',
      GIT_COMMITTER_EMAIL: 'reader@example.com',
    };
    const run = spawn('bash', ['-c', script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    run.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    run.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => run.on('exit', (exitCode) => resolve(exitCode)));
    const ran = [...out.matchAll(/^::readme-block line=(\d+)$/gm)].map((match) => Number(match[1]));
    const failed = /::readme-failed line=(\d+) command=(.*)/.exec(err);
    const report =
      `exit ${code}; ${failed === null ? '' : `the block at README line ${failed[1]} failed at: ${failed[2]}\n`}` +
      `stdout (end):\n${out.slice(-3000)}\nstderr (end):\n${err.slice(-3000)}\nserver:\n${serverOut.slice(-2000)}`;
    expect(code, report).toBe(0);
    expect(out, report).toContain('::readme-done');
    expect(ran).toEqual(blocks.filter((block) => block.skip === undefined).map((block) => block.line));

    // What the examples show happened.
    expect(out).toMatch(/"prNumber":42[^\n]*"state":"MERGED"|"state":"MERGED"[^\n]*"prNumber":42/);
    // The "Real repositories" example: PR 7 merges (its statuses reported as an external CI would).
    expect(out).toMatch(/"prNumber":7[^\n]*"state":"MERGED"|"state":"MERGED"[^\n]*"prNumber":7/);
    // The client commands: their JSON, and a refusal on stderr with exit 1.
    expect(out).toContain('"isCurrentlySubmittedToQueue": false');
    expect(err).toContain('greenline: 409 pr_already_merged');
    expect(out).toContain('"file_path":"test/widgets.spec.js"');
    expect(out).toContain('{"test":{');
    expect(out).toContain('"external_id":"KAN-123"');
    expect(out).toContain('mq_depth_current{');
    expect(out).toContain('{"status":"ok"}');
    // Links name the port the system chose (PORT=0), in the listings and in the OpenAPI document.
    expect(out).toContain(`"html_url":"${url}/tests/`);
    const document = (await (await fetch(`${url}/v1/openapi.json`)).json()) as { servers: unknown };
    expect(document.servers).toEqual([{ url: `${url}/v1` }]);
  });
});
