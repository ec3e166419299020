/**
 * A scenario played in real time on the real service: `greenline serve` (the built CLI, a child process on loopback,
 * port 0) with the local git host — a bare repository in its data folder, real git — and the built-in CI, whose one
 * required status runs the scripted command of fidelityCommand.ts. Every PR of the scenario is a real commit adding its
 * own file (`fidelity/prs/<N>`, `good` or `broken`), pushed as `refs/pull/N/head` before the clock starts; each is
 * submitted through the API at its arrival time, counted from the start; the run ends when every PR has arrived and
 * the queue is empty (or the scenario's drain time is over). The service is then stopped and its data folder read
 * (fidelityOutcome.ts) as the simulator's store is.
 *
 * Time is not compressed here: the scenario itself is written in seconds (CI medians of a fraction of a minute), and the
 * simulator plays the very same scenario.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { QueueKey } from '../engine/engine.js';
import { gitEnvironment } from '../engine/providers/local/gitRunner.js';
import { openLmdbStore } from '../engine/store/index.js';
import type { Arrival } from './arrivals.js';
import { outcomeOf, type FidelityOutcome } from './fidelityOutcome.js';
import { PR_FILES_DIR, type FidelityCommandConfig } from './fidelityTree.js';
import { settingsOf, type QueueConfig, type Scenario } from './scenario.js';

const exec = promisify(execFile);
const HOUR_MS = 3_600_000;
export const FIDELITY_STATUS = 'fidelity';

export interface RealRunOptions {
  scenario: Scenario;
  config: QueueConfig;
  seed: number;
  arrivals: readonly Arrival[];
  /** An empty folder of the caller's: the data folder, the clone and the verdicts go there. */
  dir: string;
  /**
   * Run the service and the scripted command from `dist` (the build: `npm run build` first; the benchmark) or from the
   * `source` through tsx (tests: always the code under test, at a second or so more per command, which the command's
   * wait for its run's end absorbs).
   */
  from?: 'dist' | 'source';
  /** Called on each PR submitted and each poll (for a progress line). */
  onProgress?: (message: string) => void;
}

export interface RealRun extends FidelityOutcome {
  /** The service's log (stdout and stderr), for a report when something differs. */
  serviceLog: string;
}

/** The repository's root (the folder holding package.json), from this file or its build in dist/. */
function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('cannot find the repository root (package.json) above sim/');
    dir = parent;
  }
  return dir;
}

/** The local git host's own environment (independent of the machine's configuration), with the scenario's author. */
const AUTHOR = {
  GIT_AUTHOR_NAME: 'Fidelity',
  GIT_AUTHOR_EMAIL: 'fidelity@localhost',
  GIT_COMMITTER_NAME: 'Fidelity',
  GIT_COMMITTER_EMAIL: 'fidelity@localhost',
};

async function git(cwd: string, ...args: string[]): Promise<string> {
  return (
    await exec('git', args, { cwd, env: gitEnvironment({ ...AUTHOR, HOME: cwd }), maxBuffer: 64 * 1024 * 1024 })
  ).stdout.trim();
}

interface Service {
  url: string;
  log: () => string;
  stop: () => Promise<void>;
}

/** How to run the CLI and the scripted command: node's arguments before the script's own. */
function entries(root: string, from: 'dist' | 'source'): { cli: string[]; command: string[] } {
  if (from === 'dist') {
    const command = join(root, 'dist', 'sim', 'fidelityCommand.js');
    if (!existsSync(command)) throw new Error(`${command} is missing: run \`npm run build\` first`);
    return { cli: [join(root, 'bin', 'greenline.js')], command: [command] };
  }
  // The command runs in the CI's worktree, where `tsx` alone would not resolve: its loader by path.
  const tsx = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  return {
    cli: ['--import', tsx, join(root, 'cli', 'greenline.ts')],
    command: ['--import', tsx, join(root, 'sim', 'fidelityCommand.ts')],
  };
}

/** Starts `greenline serve` and waits for its "listening" line (readiness, no deadline), or fails with its log. */
async function startService(cli: string[], env: Record<string, string>): Promise<Service> {
  const child = spawn(process.execPath, [...cli, 'serve'], {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      HOST: '127.0.0.1',
      PORT: '0',
      GREENLINE_LOG_LEVEL: 'warn',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string | undefined>((resolve) => {
    const check = () => {
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(log)?.[1];
      if (found !== undefined) resolve(found);
    };
    child.stdout.on('data', check);
    void exited.then(() => resolve(undefined));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    process.off('exit', killOnExit);
  };
  if (url === undefined) {
    await stop();
    throw new Error(`greenline serve did not start:\n${log}`);
  }
  return { url, log: () => log, stop };
}

async function post(url: string, token: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`${url}/v1/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/** Pushes the target branch (its .greenline.yaml runs the scripted command) and every PR as refs/pull/N/head. */
async function pushRepository(
  clone: string,
  remote: string,
  command: string,
  arrivals: readonly Arrival[],
): Promise<void> {
  await mkdir(clone, { recursive: true });
  await git(clone, 'init', '--quiet', '--initial-branch=main');
  // JSON is YAML: the command line as one quoted scalar.
  await writeFile(
    join(clone, '.greenline.yaml'),
    `required_statuses: [${FIDELITY_STATUS}]\nci:\n  ${FIDELITY_STATUS}: ${JSON.stringify(command)}\n`,
  );
  await git(clone, 'add', '--all');
  await git(clone, 'commit', '--quiet', '-m', 'Fidelity scenario base');
  const base = await git(clone, 'rev-parse', 'HEAD');
  const refspecs = [`${base}:refs/heads/main`];
  for (const arrival of arrivals) {
    await git(clone, 'checkout', '--quiet', '--detach', base);
    await mkdir(join(clone, PR_FILES_DIR), { recursive: true });
    await writeFile(join(clone, PR_FILES_DIR, String(arrival.number)), arrival.broken ? 'broken\n' : 'good\n');
    await git(clone, 'add', '--all');
    await git(clone, 'commit', '--quiet', '-m', `PR ${arrival.number}${arrival.broken ? ' (broken)' : ''}`);
    refspecs.push(`${await git(clone, 'rev-parse', 'HEAD')}:refs/pull/${arrival.number}/head`);
  }
  await git(clone, 'push', '--quiet', remote, ...refspecs);
}

/** A word for /bin/sh, in single quotes. */
function shellQuote(word: string): string {
  return `'${word.replaceAll("'", "'\\''")}'`;
}

const sleepUntil = (at: number) => new Promise((resolve) => setTimeout(resolve, Math.max(0, at - Date.now())));

export async function runReal(options: RealRunOptions): Promise<RealRun> {
  const { scenario, arrivals, dir } = options;
  if (options.config.mode === 'parallel')
    throw new Error('the fidelity run plays single-lane queues (no impacted targets are uploaded)');
  const { cli, command } = entries(repoRoot(), options.from ?? 'dist');
  const token = randomBytes(24).toString('hex');
  const key: QueueKey = {
    org: 'fidelity',
    repo: { host: 'fidelity.local', owner: 'fidelity', name: 'scenario' },
    branch: 'main',
  };
  const queue = { repo: key.repo, targetBranch: key.branch };
  const dataDir = join(dir, 'data');
  const verdictsDir = join(dir, 'verdicts');
  await mkdir(verdictsDir, { recursive: true });
  // Enough CI slots that no run waits for one: the simulator's CI has no limit.
  const service = await startService(cli, {
    GREENLINE_DATA: dataDir,
    GREENLINE_PROVIDER: 'local',
    GREENLINE_LOCAL_CI: 'jobs=64',
    GREENLINE_API_TOKENS: `${key.org}:${token}`,
  });
  let stopped = false;
  try {
    const configPath = join(dir, 'fidelity.json');
    const config: FidelityCommandConfig = {
      url: service.url,
      token,
      repo: key.repo,
      targetBranch: key.branch,
      seed: options.seed,
      medianMinutes: scenario.ci.medianMinutes,
      p90Minutes: scenario.ci.p90Minutes,
      flakeRate: scenario.flakeRate,
      verdictsDir,
    };
    await writeFile(configPath, JSON.stringify(config, null, 2), { mode: 0o600 });
    await post(service.url, token, 'createQueue', { ...queue, ...settingsOf(options.config) });
    const remote = join(dataDir, 'repos', key.repo.host, key.repo.owner, `${key.repo.name}.git`);
    await pushRepository(
      join(dir, 'clone'),
      remote,
      [process.execPath, ...command, configPath].map(shellQuote).join(' '),
      arrivals,
    );

    const start = Date.now() + 500;
    const limit = start + (scenario.hours + scenario.drainHours) * HOUR_MS;
    for (const arrival of arrivals) {
      await sleepUntil(start + arrival.at);
      await post(service.url, token, 'submitPullRequest', {
        ...queue,
        pr: { number: arrival.number },
        ...(arrival.priority === undefined ? {} : { priority: arrival.priority }),
      });
      options.onProgress?.(`submitted #${arrival.number} at ${((Date.now() - start) / 1000).toFixed(1)} s`);
    }
    // Progress, not a deadline: the queue empties, or the scenario's own drain time ends it as the simulator would.
    let endAt = Date.now();
    for (;;) {
      const body = (await post(service.url, token, 'getQueue', queue)) as { enqueuedPullRequests?: unknown[] };
      endAt = Date.now();
      const depth = body.enqueuedPullRequests?.length ?? 0;
      if (depth === 0 || endAt > limit) break;
      options.onProgress?.(`${depth} PRs in the queue at ${((endAt - start) / 1000).toFixed(1)} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    await service.stop();
    stopped = true;
    const store = openLmdbStore({ dir: dataDir });
    try {
      const arrivalsEnd = scenario.hours * HOUR_MS;
      return {
        ...outcomeOf(store, key, start, arrivals, Math.max(endAt - start, arrivalsEnd)),
        serviceLog: service.log(),
      };
    } finally {
      await store.close();
    }
  } finally {
    if (!stopped) await service.stop();
  }
}
