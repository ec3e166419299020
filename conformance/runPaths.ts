/**
 * Runs generated paths against the server: for each, a fresh queue, then each event caused through the API and the
 * state a client observes compared with the machine's. A path that fails stops there, with its calls as curl.
 */
import { initialTransition, type AnyMachineSnapshot } from 'xstate';
import type { Actuator } from './actuators.js';
import type { ApiClient } from './client.js';
import { stateOf, step, type MachineAlphabet, type MachinePath } from './paths.js';
import { QueueApi } from './queueApi.js';

export interface Failure {
  name: string;
  message: string;
  curl: string;
}

export interface PathResult {
  machine: string;
  name: string;
  /** Edges observed through the API (the machine's edge, its source and target both seen). */
  edges: string[];
  states: string[];
  ms: number;
  failure?: Failure;
}

export interface PathOptions {
  /** Queue branches are `${prefix}-${machine}-${index}`: fresh on each run. */
  prefix: string;
  waitMs: number;
}

function describe(path: MachinePath): string {
  const shown = (event: { type: string; [key: string]: unknown }) =>
    event.type === 'STATUS'
      ? `STATUS ${String(event.context)}=${String(event.state)}`
      : event.type === 'SWITCH_MODE'
        ? `SWITCH_MODE ${String(event.mode)}`
        : event.type;
  return `${JSON.stringify(path.input)} ${path.events.map(shown).join(' → ') || '(initial)'}`;
}

/** Cancels what is left in the queue and deletes it; a leftover is no failure of the path. */
async function cleanUp(api: QueueApi): Promise<void> {
  const queue = await api.call<{ enqueuedPullRequests?: { prNumber: number }[] }>('getQueue');
  for (const pr of queue.body.enqueuedPullRequests ?? [])
    await api.call('cancelPullRequest', { pr: { number: pr.prNumber } });
  await api.call('deleteQueue');
}

export async function runPath(
  client: ApiClient,
  machine: string,
  alphabet: MachineAlphabet,
  actuator: Actuator,
  path: MachinePath,
  index: number,
  options: PathOptions,
): Promise<PathResult> {
  const api = new QueueApi(client, `${options.prefix}-${machine}-${index}`, options.waitMs);
  const view = (snapshot: AnyMachineSnapshot) => actuator.view?.(snapshot) ?? stateOf(snapshot);
  const mark = client.mark();
  const started = Date.now();
  const result: PathResult = { machine, name: `${machine} ${describe(path)}`, edges: [], states: [], ms: 0 };
  let [snapshot] = initialTransition(alphabet.machine, path.input) as [AnyMachineSnapshot, unknown];
  try {
    await actuator.start(api, path.input);
    await api.until(
      `${machine} should start ${view(snapshot)}`,
      () => actuator.observe(api),
      (seen) => seen === view(snapshot),
    );
    result.states.push(stateOf(snapshot));
    for (const event of path.events) {
      const stepped = step(alphabet, snapshot, event, path.input);
      await actuator.cause(api, stateOf(snapshot), event, stateOf(stepped.next));
      await api.until(
        `after ${event.type} in ${view(snapshot)}, ${machine} should be ${view(stepped.next)}`,
        () => actuator.observe(api),
        (seen) => seen === view(stepped.next),
      );
      result.edges.push(...stepped.edges);
      result.states.push(stateOf(stepped.next));
      snapshot = stepped.next;
    }
  } catch (error) {
    result.failure = {
      name: result.name,
      message: error instanceof Error ? error.message : String(error),
      curl: client.curl(client.since(mark)),
    };
  }
  result.ms = Date.now() - started;
  await cleanUp(api).catch(() => undefined);
  return result;
}
