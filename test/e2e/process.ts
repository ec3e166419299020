/** Runs the real `greenline` command from source (through tsx) as a child process, on loopback and port 0. */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ENTRY = new URL('../../cli/greenline.ts', import.meta.url).pathname;

export interface Running {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Every child still running. A test that times out (its budget in vitest.config.ts) never reaches its own clean-up,
 * so when the test worker exits, whatever it started and left running is killed rather than left behind.
 */
const running = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

function run(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', ENTRY, ...args], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', GREENLINE_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.once('exit', () => running.delete(child));
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, stdout: () => out, stderr: () => err, exited };
}

/**
 * Starts `greenline serve` and waits for its "listening" line, or its exit: readiness, not a deadline (on a loaded
 * machine the start may take many times its quiet time; the test's budget in vitest.config.ts stops one that hangs).
 */
export async function startServer(env: Record<string, string>): Promise<Running> {
  const proc = run(['serve'], { HOST: '127.0.0.1', PORT: '0', ...env });
  const listening = () => /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(proc.stdout())?.[1];
  const url = await new Promise<string | undefined>((resolve) => {
    const check = () => {
      const found = listening();
      if (found !== undefined) done(found);
    };
    const exited = () => done(listening());
    const done = (found: string | undefined) => {
      proc.child.stdout!.off('data', check);
      proc.child.off('exit', exited);
      resolve(found);
    };
    proc.child.stdout!.on('data', check);
    proc.child.on('exit', exited);
    check();
  });
  if (url === undefined) {
    proc.child.kill('SIGKILL');
    throw new Error(`server did not start:\n${proc.stdout()}\n${proc.stderr()}`);
  }
  return { ...proc, url };
}

/** Starts a CLI command and hands it over running (its output so far, its exit). */
export function spawnCli(args: string[], env: Record<string, string>) {
  return run(args, env);
}

/** Runs a CLI command to completion. */
export async function runCli(args: string[], env: Record<string, string>) {
  const proc = run(args, env);
  const { code } = await proc.exited;
  return { code, stdout: proc.stdout(), stderr: proc.stderr() };
}

export async function withDataDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'greenline-e2e-'));
  try {
    return await fn(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function stop(server: Running, signal: NodeJS.Signals = 'SIGTERM') {
  if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill(signal);
  return server.exited;
}

export function call(server: Running, path: string, token: string | undefined, body?: unknown) {
  return fetch(`${server.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(token === undefined ? {} : { 'x-api-token': token }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/**
 * Polls until `check` holds (real time: a real server at work). No deadline of its own unless `ms` is given: the
 * test's budget (vitest.config.ts) stops one that is stuck, whatever the machine's load.
 */
export async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, ms?: number): Promise<T> {
  const until = ms === undefined ? Number.POSITIVE_INFINITY : Date.now() + ms;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until) throw new Error(`still not there after ${ms} ms: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
