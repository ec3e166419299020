/** The pull request machine's tests' start: its input, its states, and a snapshot reached in a named state. */
import { type PullRequestEvent, pullRequestMachine } from '../../machines/index.js';
import { routeTo, run } from './graph.js';
import { pullRequestModel } from './models.js';

export const input = { number: 42 };
export const STATES = Object.values(pullRequestMachine.root.states);
export const NON_FINAL = STATES.filter((state) => state.type !== 'final').map((state) => state.key);
export const FINAL = STATES.filter((state) => state.type === 'final').map((state) => state.key);

export function at(state: string, ...more: PullRequestEvent[]) {
  return run(pullRequestMachine, input, [...routeTo(pullRequestModel, input, state), ...more]);
}
