/**
 * How each machine's events are caused and observed through the API. An actuator sets up a fresh queue for a path
 * (`start`), causes one event (`cause`) and reads the state a client sees (`observe`); the path runner compares that
 * with the machine's.
 */
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import { ConformanceFailure, type QueueApi } from './queueApi.js';

export interface Actuator {
  /** A fresh queue (and PR, or run) in the machine's initial state for `input`. */
  start(api: QueueApi, input: unknown): Promise<void>;
  /** Causes `event` in `state`, expecting `expected` after it and its follow-ups. */
  cause(api: QueueApi, state: string, event: AnyEventObject, expected: string): Promise<void>;
  /** What a client sees: the state (for a queue, with its mode). */
  observe(api: QueueApi): Promise<string>;
  /** What `observe` should read in `snapshot` (absent: its state value). */
  view?(snapshot: AnyMachineSnapshot): string;
}

const PR = 1;

/** Fails when run `runId` is still in progress after `what`, read once the call that should end it has answered. */
async function runEnded(api: QueueApi, runId: string, what: string): Promise<void> {
  const run = await api.run(runId);
  if ((run.status ?? 'in_progress') === 'in_progress')
    throw new ConformanceFailure(`${what}, and its run ${runId} is still in progress`);
}

/** One PR in a parallel queue (it waits NOT_READY for its impacted targets), paused between steps. */
export const pullRequestActuator: Actuator = {
  async start(api) {
    await api.create({ mode: 'parallel', state: 'paused' });
    await api.submit(PR);
  },
  async cause(api, state, event, expected) {
    const pr = await api.pr(PR);
    switch (event.type) {
      case 'READY':
        return api.targets(PR);
      case 'START_TEST':
        await api.update({ state: 'running' });
        await api.waitPr(PR, 'TESTING');
        await api.update({ state: 'paused' });
        return;
      case 'PASS':
      case 'FAIL':
        return api.status(pr.testRunId ?? '', 'ci', event.type === 'PASS' ? 'success' : 'failure');
      case 'REQUEST_MERGE':
        await api.update({ state: 'running' });
        await api.waitPr(PR, expected);
        await api.update({ state: 'paused' });
        return;
      case 'RESTART':
        await api.ok('restartTestsOnPullRequest', { pr: { number: PR } });
        if (state === 'TESTING' && pr.testRunId)
          await runEnded(api, pr.testRunId, `PR #${PR} was restarted while testing`);
        return;
      case 'CANCEL':
        await api.ok('cancelPullRequest', { pr: { number: PR } });
        // The run it was testing ends with it (a run left in progress holds the queue's place for nothing).
        if (state === 'TESTING' && pr.testRunId)
          await runEnded(api, pr.testRunId, `PR #${PR} was cancelled while testing`);
        return;
      default:
        throw new Error(`no API call causes ${event.type} in ${state}`);
    }
  },
  async observe(api) {
    return (await api.pr(PR)).state;
  },
};

/** A run of PR 1 in a running single queue, with the required statuses of `input`. */
export const testRunActuator: Actuator = {
  async start(api, input) {
    const required = (input as { requiredStatuses: string[] }).requiredStatuses;
    await api.create({ state: 'running', ...(required.length > 0 ? { requiredStatuses: required } : {}) });
    await api.submit(PR);
    await api.waitPr(PR, 'TESTING');
  },
  async cause(api, _state, event) {
    if (event.type === 'CANCEL') {
      await api.ok('cancelPullRequest', { pr: { number: PR } });
      return;
    }
    if (event.type !== 'STATUS') throw new Error(`no API call causes ${event.type}`);
    const pr = await api.pr(PR);
    await api.status(pr.testRunId ?? '', String(event.context), String(event.state));
  },
  async observe(api) {
    const pr = await api.pr(PR);
    return (await api.run(pr.testRunId ?? '')).status ?? 'in_progress';
  },
};

/**
 * A queue whose draining and mode switches have a run in flight to wait for: a holder PR is kept TESTING whenever
 * the next event leads to a state that settles, and SETTLED is its run passing.
 */
export function queueActuator(): Actuator {
  let holders: number[] = [];
  let next = 100;
  const hold = async (api: QueueApi): Promise<void> => {
    if (holders.length > 0) return;
    const queue = await api.queue();
    if (queue.state === 'paused') await api.update({ state: 'running' });
    const number = next++;
    await api.submit(number);
    if (queue.mode === 'parallel') await api.targets(number);
    await api.waitPr(number, 'TESTING');
    holders.push(number);
    if (queue.state === 'paused') await api.update({ state: 'paused' });
  };
  return {
    async start(api) {
      holders = [];
      await api.create({ state: 'running', mode: 'single' });
    },
    async cause(api, state, event, expected) {
      const settles = expected === 'draining' || expected === 'switching_modes';
      if (settles && state !== 'draining' && state !== 'switching_modes') await hold(api);
      switch (event.type) {
        case 'PAUSE':
        case 'RESUME':
        case 'DRAIN':
          await api.update({ state: { PAUSE: 'paused', RESUME: 'running', DRAIN: 'draining' }[event.type] });
          return;
        case 'SWITCH_MODE':
          await api.update({ mode: event.mode });
          return;
        case 'SETTLED': {
          for (const number of holders) {
            const pr = await api.pr(number);
            await api.status(pr.testRunId ?? '', 'ci', 'success');
          }
          holders = [];
          return;
        }
        default:
          throw new Error(`no API call causes ${event.type}`);
      }
    },
    async observe(api) {
      const queue = await api.queue();
      return `${queue.state} (${queue.mode})`;
    },
    view(snapshot) {
      return `${String(snapshot.value)} (${String((snapshot.context as { mode: string }).mode)})`;
    },
  };
}
