/**
 * What a command loads: `--version`, `--help` and the client commands load nothing of the service (no api/,
 * engine/, web/, sim/ or machines/ module, no Fastify, LMDB, xstate, zod or octokit), so they start in about the
 * time of a bare node (bench/startup.ts has the figures). Asked of the real process, by the modules it resolves.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';

const ROOT = new URL('../..', import.meta.url).pathname;
const ENTRY = join(ROOT, 'cli/greenline.ts');
const LOGGER = new URL('./importLog.mjs', import.meta.url).href;
const SERVICE =
  /\/(?:api|engine|web|sim|machines)\/|\/node_modules\/(?:fastify|lmdb|xstate|zod|@octokit|pg|@trpc|prom-client)\//;

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'greenline-imports-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs the command from source and answers the modules it resolved, and its output. */
async function modulesOf(name: string, args: string[], env: Record<string, string> = {}) {
  const log = join(dir, `${name}.log`);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--import', LOGGER, ENTRY, ...args], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: dir, GREENLINE_IMPORT_LOG: log, GREENLINE_CONFIG_DIR: dir, ...env },
    timeout: 100_000,
    encoding: 'utf8',
  });
  const modules = (await readFile(log, 'utf8')).split('\n').filter((line) => line.startsWith('file:'));
  return { modules, status: result.status, stdout: result.stdout, stderr: result.stderr };
}

test('--version and --help load no module of the service', async () => {
  for (const [name, args] of [
    ['version', ['--version']],
    ['help', ['--help']],
  ] as const) {
    const { modules, status, stdout } = await modulesOf(name, [...args]);
    expect(status).toBe(0);
    expect(stdout.endsWith('\n')).toBe(true);
    expect(modules.some((url) => url.endsWith('/cli/main.ts'))).toBe(true);
    expect(modules.filter((url) => SERVICE.test(url))).toEqual([]);
  }
});

test('a client command loads its own module and no module of the service', async () => {
  const { modules, status, stderr } = await modulesOf('pr', [
    'pr',
    'show',
    '1',
    '--repo',
    'github.com/acme/widgets',
    '--url',
    'http://127.0.0.1:1',
    '--token',
    'x',
  ]);
  expect(status).toBe(1);
  expect(stderr).toMatch(/^greenline: cannot reach http:\/\/127\.0\.0\.1:1/);
  expect(modules.some((url) => url.endsWith('/cli/clientCommands.ts'))).toBe(true);
  expect(modules.filter((url) => SERVICE.test(url))).toEqual([]);
});

test('serve is what loads the service', async () => {
  // An environment serve refuses (it reads it first, once its modules are loaded), so that it stops at once.
  const { modules, status, stderr } = await modulesOf('serve', ['serve'], { PORT: 'not-a-port', GREENLINE_DATA: dir });
  expect(status, stderr).toBe(2);
  expect(modules.some((url) => /\/api\/server\.ts$/.test(url))).toBe(true);
});
