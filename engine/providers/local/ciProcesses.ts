/**
 * The built-in CI's processes: a limit on the commands running at once, commands ended with their process group
 * (SIGTERM, then SIGKILL), and leftovers of a crashed service found by their marker and killed.
 */
import type { ChildProcess } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';

export interface Job {
  child?: ChildProcess;
  /** Why the runner ended it: stopped (the run ended, or the service stops) or timed out. */
  ended?: 'stopped' | 'timeout';
  done: Promise<void>;
}

/** A counting semaphore: at most `size` holders at once, served in order. */
export class Slots {
  private used = 0;
  private readonly waiting: (() => void)[] = [];
  constructor(private readonly size: number) {}
  async acquire(): Promise<void> {
    if (this.used < this.size) {
      this.used++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }
  release(): void {
    const next = this.waiting.shift();
    if (next !== undefined) next();
    else this.used--;
  }
}

/** Ends a job's command and everything it started (its process group): SIGTERM, then SIGKILL after `graceMs`. */
export function killJob(job: Job, why: 'stopped' | 'timeout', graceMs: number): void {
  job.ended ??= why;
  const pid = job.child?.pid;
  if (pid === undefined || job.child?.exitCode !== null || job.child.signalCode !== null) return;
  signalGroup(pid, 'SIGTERM');
  const force = setTimeout(() => signalGroup(pid, 'SIGKILL'), graceMs);
  force.unref();
  job.child.once('exit', () => {
    clearTimeout(force);
    // Whatever the shell started and left behind goes too.
    signalGroup(pid, 'SIGKILL');
  });
}

/** A command a crashed service left running (its pid file at `pidPath`): killed when it is still that command (`marker`). */
export async function killLeftover(pidPath: string, marker: string): Promise<void> {
  const pid = Number(await readFile(pidPath, 'utf8').catch(() => ''));
  if (Number.isInteger(pid) && pid > 1) {
    const environ = await readFile(`/proc/${pid}/environ`, 'utf8').catch(() => '');
    if (environ.split('\u0000').includes(`GREENLINE_CI_JOB=${marker}`)) signalGroup(pid, 'SIGKILL');
  }
  await rm(pidPath, { force: true });
}

export function withoutGreenlineSettings(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('GREENLINE_')));
}

export function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // already gone
  }
}
