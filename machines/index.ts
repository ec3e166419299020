/** Every lifecycle machine, by name: what the engine runs and `greenline charts` draws. */
import { pullRequestMachine } from './pullRequest.js';
import { queueMachine } from './queue.js';
import { testRunMachine } from './testRun.js';

export const MACHINES = {
  pullRequest: pullRequestMachine,
  testRun: testRunMachine,
  queue: queueMachine,
} as const;

export type MachineName = keyof typeof MACHINES;

/** Bumped when a machine changes shape, so stored snapshots can be migrated. */
export const MACHINE_VERSION: Record<MachineName, number> = { pullRequest: 1, testRun: 1, queue: 1 };

export { pullRequestMachine, queueMachine, testRunMachine };
export type { PullRequestContext, PullRequestEvent } from './pullRequest.js';
export type { QueueContext, QueueEvent } from './queue.js';
export type { CommitState, TestRunContext, TestRunEvent } from './testRun.js';
