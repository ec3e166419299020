/**
 * One command of the built-in CI: run with the shell in a worktree, its output (stdout and stderr together) written to
 * its log, in its own process group, with the service's own settings kept out of its environment; and the outcome its
 * exit means.
 */
import { spawn } from 'node:child_process';
import { open, rm, writeFile } from 'node:fs/promises';
import type { CiRun } from '../types.js';
import { jobMarker, type Outcome } from './ciFiles.js';
import { signalGroup, withoutGreenlineSettings, type Job } from './ciProcesses.js';

export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CommandSpec {
  shell: string;
  command: string;
  run: CiRun;
  status: string;
  worktree: string;
  logPath: string;
  pidPath: string;
  /** Called once the command is running (its pid written). */
  onStarted: () => void;
}

/**
 * Runs the command until it exits; `job.child` is its process while it runs, so the runner can end it. What it left
 * running in the background is killed with it.
 */
export async function runCommand(spec: CommandSpec, job: Job): Promise<CommandExit> {
  const { run, status } = spec;
  await rm(spec.logPath, { force: true });
  const log = await open(spec.logPath, 'w');
  try {
    await log.write(`$ ${spec.command}\n`);
    const child = spawn(spec.shell, ['-c', spec.command], {
      cwd: spec.worktree,
      detached: true,
      stdio: ['ignore', log.fd, log.fd],
      env: {
        // The service's own settings stay out of reach of the code under test (GREENLINE_API_TOKENS above all).
        ...withoutGreenlineSettings(process.env),
        CI: 'true',
        GREENLINE_RUN_ID: run.runId,
        GREENLINE_STATUS: status,
        GREENLINE_SHA: run.sha,
        GREENLINE_BRANCH: run.branch,
        GREENLINE_CI_JOB: jobMarker(run.runId, status),
      },
    });
    job.child = child;
    const exited = new Promise<CommandExit>((resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
    if (child.pid !== undefined) await writeFile(spec.pidPath, String(child.pid));
    spec.onStarted();
    const exit = await exited;
    // What the command left running in the background ends with it.
    if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    return exit;
  } finally {
    await log.close();
  }
}

/** The outcome of a command that exited (`timedOut`: the runner killed it at the queue's testing timeout). */
export function outcomeOf(exit: CommandExit, timedOut: boolean, startedAt: string): Outcome {
  return {
    state: timedOut ? 'error' : exit.code === 0 ? 'success' : 'failure',
    description: timedOut
      ? "killed at the queue's testing timeout"
      : exit.code === 0
        ? 'passed'
        : exit.code !== null
          ? `exited with ${exit.code}`
          : `killed by ${exit.signal ?? 'a signal'}`,
    exitCode: exit.code,
    signal: exit.signal,
    startedAt,
    endedAt: new Date().toISOString(),
  };
}
