/**
 * The bisection machine driven through the API: a batch of PRs #1 and #2 in a single queue, paused between steps,
 * fails (a bisection splits it in halves, a group of one PR each), the groups start (the queue resumed until their
 * runs are in progress), each group's run passes (rescued) or fails (its PR is the culprit), and a PR is cancelled
 * (it leaves its group). What a client sees of it is the state the dashboard's state charts page counts the
 * organization's bisections in (one bisection at a time in the suite); a bisection forming or ended is not stored,
 * so neither is counted ("none").
 */
import type { AnyEventObject, AnyMachineSnapshot } from 'xstate';
import type { BisectionContext } from '../machines/index.js';
import type { Actuator } from './actuators.js';
import type { MachineAlphabet } from './paths.js';
import { ConformanceFailure, type QueueApi } from './queueApi.js';

/** The halves of the failed batch: group g1 holds PR #1, g2 PR #2. */
const PR_OF: Record<string, number> = { g1: 1, g2: 2 };
const groupOf = (pr: number) => (pr === 1 ? 'g1' : 'g2');

/** The bisection events a client causes: the batch fails, the groups start, a group's verdict, a PR cancelled. */
export const BISECTION_API_EVENTS: AnyEventObject[] = [
  { type: 'SPLIT', group: 'g1', prs: [1] },
  { type: 'GROUP_TESTING', group: 'g1', pr: 1, runId: 'run-1' },
  { type: 'GROUP_TESTING', group: 'g2', pr: 2, runId: 'run-2' },
  ...[1, 2].flatMap((pr) => [
    { type: 'GROUP_RESCUED', group: groupOf(pr) },
    { type: 'CULPRIT_FOUND', group: groupOf(pr), pr },
    { type: 'LEFT', group: groupOf(pr), pr },
  ]),
];

const groups = (snapshot: AnyMachineSnapshot) => (snapshot.context as BisectionContext).groups;

/**
 * What the API can cause in `snapshot`: the batch fails once (forming); the groups start while none is under test;
 * a verdict needs its group under test; a PR leaves a group it is in.
 */
export function bisectionCauses(state: string, event: AnyEventObject, snapshot: AnyMachineSnapshot): boolean {
  const group = groups(snapshot)[String(event.group)];
  switch (event.type) {
    case 'SPLIT':
      return state === 'forming';
    case 'GROUP_TESTING':
      return state === 'split' && group !== undefined && group.runId === null;
    case 'GROUP_RESCUED':
    case 'CULPRIT_FOUND':
      return group !== undefined && group.runId !== null;
    case 'LEFT':
      return group?.prs.includes(Number(event.pr)) === true;
    default:
      return false;
  }
}

/** The engine's next moves: the failed batch's other half forms; every group waiting starts with the first. */
export function bisectionFollowUps(_state: string, event: AnyEventObject, next: AnyMachineSnapshot): AnyEventObject[] {
  if (event.type === 'SPLIT') return [{ type: 'SPLIT', group: 'g2', prs: [2] }];
  if (event.type !== 'GROUP_TESTING') return [];
  return Object.entries(groups(next))
    .filter(([, group]) => group.runId === null)
    .map(([name, group]) => ({ type: 'GROUP_TESTING', group: name, pr: group.prs[0], runId: `run-${name}` }));
}

/** The API-level alphabet of the bisection machine (its whole alphabet is `FULL.bisection`). */
export function bisectionAlphabet(full: MachineAlphabet): MachineAlphabet {
  return { ...full, events: BISECTION_API_EVENTS, causes: bisectionCauses, followUps: bisectionFollowUps };
}

/** The states the charts page counts bisections in, read from its table (`data-machine="bisection"`). */
export function countedStates(html: string): Map<string, number> {
  const table = /<table class="counts" data-machine="bisection">([\s\S]*?)<\/table>/.exec(html)?.[1];
  if (table === undefined) throw new ConformanceFailure('the state charts page has no table of bisections');
  const counts = new Map<string, number>();
  for (const [, state, count] of table.matchAll(/<tr data-state="(\w+)">[\s\S]*?<td>(\d+)<\/td><\/tr>/g))
    counts.set(state as string, Number(count));
  return counts;
}

async function runOf(api: QueueApi, pr: number): Promise<string> {
  const view = await api.pr(pr);
  if (view.state !== 'TESTING' || view.testRunId === undefined)
    throw new ConformanceFailure(`PR #${pr} should be TESTING in a run, and is ${view.state}`);
  return view.testRunId;
}

/** The states the organization's bisections are in, as the charts page counts them ("none": no bisection stored). */
async function observe(api: QueueApi): Promise<string> {
  const counted = [...countedStates(await api.client.page('/charts'))].filter(([, count]) => count > 0);
  if (counted.length === 0) return 'none';
  return counted.map(([state, count]) => (count === 1 ? state : `${count} ${state}`)).join(', ');
}

export const bisectionActuator: Actuator = {
  async start(api) {
    await api.create({ state: 'paused', mode: 'single', batch: true, batchingMinSize: 2 });
    await api.submit(1);
    await api.submit(2);
    await api.update({ state: 'running' });
    const [first, second] = [await api.waitPr(1, 'TESTING'), await api.waitPr(2, 'TESTING')];
    await api.update({ state: 'paused' });
    if (first.testRunId !== second.testRunId)
      throw new ConformanceFailure(
        `PRs #1 and #2 should be tested in one batch: ${first.testRunId}, ${second.testRunId}`,
      );
  },
  async cause(api, _state, event) {
    switch (event.type) {
      case 'SPLIT':
        return api.status(await runOf(api, 1), 'ci', 'failure');
      case 'GROUP_TESTING':
        // Every group waiting starts: no PR of the batch is left PENDING (waiting for a slot).
        await api.update({ state: 'running' });
        await api.until(
          'the groups of the bisection should be under test',
          async () => [await observe(api), (await api.pr(1)).state, (await api.pr(2)).state],
          ([seen, ...states]) => seen === 'halvesUnderTest' && !states.includes('PENDING'),
        );
        return void (await api.update({ state: 'paused' }));
      case 'GROUP_RESCUED':
      case 'CULPRIT_FOUND': {
        const pr = PR_OF[String(event.group)] ?? 0;
        return api.status(await runOf(api, pr), 'ci', event.type === 'GROUP_RESCUED' ? 'success' : 'failure');
      }
      case 'LEFT':
        return void (await api.ok('cancelPullRequest', { pr: { number: Number(event.pr) } }));
      default:
        throw new Error(`no API call causes ${event.type}`);
    }
  },
  observe,
  view(snapshot) {
    return snapshot.value === 'forming' || snapshot.value === 'ended' ? 'none' : String(snapshot.value);
  },
};
