/**
 * A simulation forked at a moment and played on with fresh draws of everything its queue's state does not know: how
 * long the runs under way and every later run take, whether the PRs not yet proven good are broken (forkEvidence.ts),
 * which runs flake, and the PRs still to arrive (drawn from the scenario's rates, after those that arrived). What the
 * queue knows (its PRs, runs, settings, history) is the snapshot of its store, restored into a new engine as a restart
 * restores it. The median over many forks of when a PR merges is the best estimate any estimator that sees the queue's
 * state can give: an oracle of the state, not of the future (bench/estimatesOracle.ts).
 */
import { Engine } from '../engine/engine.js';
import { copyStore } from '../engine/store/copy.js';
import { createMemoryStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { isEnqueued } from '../machines/vocabulary.js';
import { type Arrival, drawArrivals } from './arrivals.js';
import { ForkCi } from './forkCi.js';
import { drawBroken, evidenceOf } from './forkEvidence.js';
import { SIM_KEY, SIM_START } from './queueRun.js';
import { Random } from './random.js';
import type { Scenario } from './scenario.js';
import { applyTargets } from './targets.js';
import { EMPTY_TREE, TreeGitHost } from './trees.js';

const HOUR_MS = 3_600_000;

/** A copy of a simulation's store at a moment. */
export interface Snapshot {
  store: Store;
  /** The moment (ms since the epoch). */
  at: number;
  /** The highest PR number that had arrived. */
  arrived: number;
}

/** What a fork needs of the simulation it forks: its scenario and seed, and the truth of the PRs that left. */
export interface ForkSource {
  scenario: Scenario;
  seed: number;
  arrivals: readonly Arrival[];
  parallel: boolean;
}

/** A copy of `store` at `at`; the PRs that had arrived are those it holds. */
export function snapshotOf(store: Store, at: number): Snapshot {
  const copy = createMemoryStore();
  copyStore(store, copy);
  const arrived = copy.read((tx) => Math.max(0, ...[...tx.scan('pullRequests')].map(({ value }) => value.number)));
  return { store: copy, at, arrived };
}

/** The simulated git host of a fork: heads answered before the fork are not known to it, their trees are empty. */
class ForkGitHost extends TreeGitHost {
  override treeOf(head: string): bigint {
    try {
      return super.treeOf(head);
    } catch {
      return EMPTY_TREE;
    }
  }
}

/**
 * Plays fork `index` of a snapshot until every PR of `targets` left the queue (or the scenario's drain ends): answers
 * when each of them that merged did (ms since the epoch).
 */
export async function playFork(
  source: ForkSource,
  snapshot: Snapshot,
  index: number,
  targets: readonly number[],
): Promise<Map<number, number>> {
  const { scenario } = source;
  const forkSeed = source.seed * 100_003 + index + 1;
  const store = createMemoryStore();
  copyStore(snapshot.store, store);
  const { prs, runs } = store.read((tx) => ({
    prs: [...tx.scan('pullRequests')].map(({ value }) => value),
    runs: [...tx.scan('testRuns')].map(({ value }) => value),
  }));
  const truth = new Map(source.arrivals.map((arrival) => [arrival.number, arrival.broken]));
  const evidence = evidenceOf(prs, runs, (number) => truth.get(number) ?? false);
  const drawn = drawBroken(evidence, scenario.brokenRate, scenario.flakeRate, new Random(forkSeed, 'fork-broken'));
  const offset = snapshot.at - SIM_START;
  const future = drawArrivals(scenario, forkSeed)
    .filter((arrival) => arrival.at > offset)
    .map((arrival, at) => ({ ...arrival, number: snapshot.arrived + at + 1 }));
  for (const arrival of future) drawn.set(arrival.number, arrival.broken);
  const isBroken = (number: number) => drawn.get(number) ?? evidence.known.get(number) ?? false;
  const scheduler = new VirtualScheduler(snapshot.at);
  const ci = new ForkCi(
    scheduler,
    {
      seed: forkSeed,
      medianMinutes: scenario.ci.medianMinutes,
      p90Minutes: scenario.ci.p90Minutes,
      flakeRate: scenario.flakeRate,
      isBroken,
    },
    snapshot.at,
  );
  const facts = new Map([...source.arrivals, ...future].map((arrival) => [arrival.number, arrival]));
  const gitHost = new ForkGitHost(isBroken, (number) => {
    const arrival = facts.get(number);
    return arrival?.author === undefined ? {} : { author: arrival.author, changedLines: arrival.changedLines ?? 0 };
  });
  const failures: string[] = [];
  const engine = new Engine(store, {
    scheduler,
    gitHost,
    ci,
    onError: (message) => failures.push(message),
    sampleEstimates: false,
  });
  const key = SIM_KEY;
  let queueId = '';
  ci.attach((runId) => {
    const run = engine.testRun(queueId, runId);
    if (run === undefined) throw new Error(`fork: run ${runId} started, but the engine does not know it`);
    return { prs: run.prs, basePrs: run.basePrs, baseTree: gitHost.treeOf(run.baseSha) };
  });
  queueId = engine.getQueue(key).queue.id;
  engine.start();
  await engine.settle();
  const merged = new Map<number, number>();
  const waiting = new Set(targets);
  const look = () => {
    for (const number of waiting) {
      const { pr } = engine.getSubmittedPullRequest(key, number);
      if (isEnqueued(pr.state)) continue;
      waiting.delete(number);
      if (pr.state === 'MERGED') merged.set(number, Date.parse(pr.stateChangedAt));
    }
  };
  look();
  const limit = SIM_START + (scenario.hours + scenario.drainHours) * HOUR_MS;
  let next = 0;
  while (waiting.size > 0 && failures.length === 0) {
    const arrival = future[next];
    const arrivalAt = arrival === undefined ? Infinity : SIM_START + arrival.at;
    const dueAt = scheduler.nextDueAt() ?? Infinity;
    const at = Math.min(arrivalAt, dueAt);
    if (at === Infinity || at > limit) break;
    if (arrival !== undefined && arrivalAt <= dueAt) {
      scheduler.advanceTo(arrivalAt);
      engine.submitPullRequest(
        key,
        arrival.number,
        arrival.priority === undefined ? {} : { priority: arrival.priority },
      );
      if (source.parallel) {
        const pr = await gitHost.pullRequest(key.repo, arrival.number, key.branch);
        applyTargets(engine, key, { number: arrival.number, sha: pr.sha }, arrival.targets ?? []);
      }
      next++;
    } else {
      scheduler.advanceTo(dueAt);
    }
    await engine.settle();
    look();
  }
  engine.stop();
  if (failures.length > 0) throw new Error(`fork: the engine failed: ${failures[0]}`);
  return merged;
}
