/**
 * What an interleaving knows of its queue, all of it read through the API: the PRs it was told it acknowledged and
 * cancelled, the runs it saw, the flakes it caused, and observations of the queue and every PR (listPullRequests).
 */
import { ConformanceFailure, type QueueApi, type RunView } from './queueApi.js';

export interface PrObservation {
  number: number;
  state: string;
  /** When it merged (ms), for MERGED PRs: the order of merges. */
  mergedAt: number;
}

export interface Observation {
  queue: string;
  /** The state last asked with updateQueue (undefined: none asked). */
  requested: string | undefined;
  prs: Map<string, PrObservation>;
}

export interface SeenRun {
  id: string;
  status: string;
  prs: number[];
  base: number[];
  /** When it was created (ms): what had merged by then is its target head. */
  createdAt: number;
  /** A parallel run: PRs that impact other targets are not in its tree. */
  parallel: boolean;
}

/** PR n's impacted targets: PRs n and n + 3 share theirs, so some PRs of a parallel queue depend on others. */
export function targetsOf(number: number): string[] {
  return [`t${number % 3}`];
}

export interface World {
  api: QueueApi;
  /** Whether PR n (index n − 1) is broken: every run with it in its tree fails. */
  bad: readonly boolean[];
  /** PR id → number, for every submit answered 200. */
  acknowledged: Map<string, number>;
  /** PR ids whose cancel was answered 200. */
  cancelled: Set<string>;
  /** PRs a flaky failure was reported on. */
  flaked: Set<number>;
  requested: string | undefined;
  runs: Map<string, SeenRun>;
  inProgressRuns(): Promise<{ id: string; run: RunView }[]>;
  treeOf(run: RunView): number[];
  succeededRuns(): SeenRun[];
}

function baseOf(run: RunView): number[] {
  return run.basePullRequests ?? run.dependentPrs ?? [];
}

export function newWorld(api: QueueApi, bad: readonly boolean[]): World {
  const runs = new Map<string, SeenRun>();
  const remember = (id: string, run: RunView): void => {
    runs.set(id, { id, ...runOf(run) });
  };
  return {
    api,
    bad,
    acknowledged: new Map(),
    cancelled: new Set(),
    flaked: new Set(),
    requested: undefined,
    runs,
    async inProgressRuns() {
      const listed = await api.ok<{ pullRequests: { prNumber: number; state: string; testRunId: string }[] }>(
        'listPullRequests',
        { take: 100, state: 'TESTING' },
      );
      const ids = [...new Set(listed.pullRequests.map((p) => p.testRunId).filter((id) => id !== ''))].sort();
      const found: { id: string; run: RunView }[] = [];
      for (const id of ids) {
        const run = await api.run(id);
        remember(id, run);
        if ((run.status ?? 'in_progress') === 'in_progress') found.push({ id, run });
      }
      return found;
    },
    treeOf: (run) => [...new Set([...baseOf(run), ...run.testedPullRequests.map((p) => p.prNumber)])],
    succeededRuns: () => [...runs.values()].filter((run) => run.status === 'succeeded'),
  };
}

export async function observe(world: World): Promise<Observation> {
  const queue = await world.api.queue();
  const listed = await world.api.ok<{
    pullRequests: { id: string; prNumber: number; state: string; stateChangedAt: string }[];
  }>('listPullRequests', { take: 100 });
  const prs = new Map<string, PrObservation>();
  for (const view of listed.pullRequests)
    prs.set(view.id, {
      number: view.prNumber,
      state: view.state,
      mergedAt: view.state === 'MERGED' ? Date.parse(view.stateChangedAt) : 0,
    });
  return { queue: queue.state, requested: world.requested, prs };
}

const FINAL = ['MERGED', 'FAILED', 'CANCELLED'];

/**
 * Runs the queue to the end: running, CI answering every run (pass when its tree is good), targets for PRs that wait
 * for them, until every acknowledged PR is final. Stuck (nothing changes for the wait budget) is a failure.
 */
export async function settle(world: World): Promise<Observation[]> {
  const { api } = world;
  await api.update({ state: 'running' });
  world.requested = 'running';
  const history: Observation[] = [];
  let lastChange = Date.now();
  let previous = '';
  let delay = 5;
  for (;;) {
    for (const { id, run } of await world.inProgressRuns()) {
      const good = world.treeOf(run).every((n) => !world.bad[n - 1]);
      await api.status(id, 'ci', good ? 'success' : 'failure');
    }
    const observation = await observe(world);
    history.push(observation);
    for (const view of observation.prs.values()) {
      if (view.state === 'NOT_READY') {
        const pr = await api.pr(view.number);
        await api.call('setImpactedTargets', {
          pr: { number: view.number, sha: pr.prSha },
          impactedTargets: targetsOf(view.number),
        });
      }
    }
    if ([...world.acknowledged.keys()].every((id) => FINAL.includes(observation.prs.get(id)?.state ?? 'MISSING')))
      break;
    const key = JSON.stringify([observation.queue, [...observation.prs.entries()]]);
    if (key !== previous) {
      previous = key;
      lastChange = Date.now();
      delay = 5;
    } else if (Date.now() - lastChange > api.waitMs) {
      throw new ConformanceFailure(
        `stuck for ${api.waitMs} ms: queue ${observation.queue}, PRs ${JSON.stringify([...observation.prs.values()])}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 200);
  }
  // The runs behind the merged PRs, as they ended.
  for (const view of history[history.length - 1]?.prs.values() ?? []) {
    if (view.state !== 'MERGED') continue;
    const pr = await api.pr(view.number);
    if (pr.testRunId !== undefined && pr.testRunId !== '')
      world.runs.set(pr.testRunId, { id: pr.testRunId, ...runOf(await api.run(pr.testRunId)) });
  }
  for (const id of [...world.runs.keys()]) world.runs.set(id, { id, ...runOf(await api.run(id)) });
  return history;
}

export function runOf(run: RunView): Omit<SeenRun, 'id'> {
  return {
    status: run.status ?? 'in_progress',
    prs: run.testedPullRequests.map((p) => p.prNumber),
    base: baseOf(run),
    createdAt: Date.parse(run.createdAt ?? ''),
    parallel: run.dependentPrs !== undefined,
  };
}
