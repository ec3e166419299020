/**
 * One configuration on the real engine: a fresh in-memory store, the simulated git host, the scenario's CI, and a
 * virtual clock moved from event to event (the next arrival or the next timer, whichever is first; timers due at the
 * same time as an arrival fire before it). Arrivals stop after the scenario's hours; the queue then runs on until it
 * is empty or the drain period is over. A queue that grows past the scenario's `saturationDepth` is saturated: its
 * simulation stops there, and every PR it has not resolved by then is unfinished. Everything — ids, timestamps, outcomes — derives from the clock and the seed.
 */
import { Engine, type QueueKey } from '../engine/engine.js';
import type { FailurePredictor } from '../engine/model/likelihoodModel.js';
import type { QueuePatch } from '../engine/model/queues.js';
import { VirtualScheduler } from '../engine/runtime/scheduler.js';
import { createMemoryStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import type { PullRequestState, TestRunStatus } from '../machines/vocabulary.js';
import type { Arrival } from './arrivals.js';
import { SCENARIO_CI_CONTEXT, ScenarioCi, type ScenarioCiOptions } from './ci.js';
import { TreeGitHost } from './trees.js';
import { eventLogOf, RecordingStore, type EventLog } from '../engine/runtime/eventLog.js';
import type { Scenario } from './scenario.js';
import { applyTargets } from './targets.js';
import { isEnqueued } from '../machines/vocabulary.js';

export const SIM_KEY: QueueKey = {
  org: 'sim',
  repo: { host: 'sim.invalid', owner: 'sim', name: 'repo' },
  branch: 'main',
};
/** A Monday, midnight UTC: arrival times count from here and the daily cycle follows it. */
export const SIM_START = Date.parse('2026-01-05T00:00:00.000Z');

const HOUR_MS = 3_600_000;

/** What became of one PR. */
export interface PrOutcome {
  number: number;
  arrivedAt: number;
  broken: boolean;
  /** MERGED, FAILED or CANCELLED; any other state: still in the queue when the simulation ended. */
  state: PullRequestState;
  /** When it left the queue (ms since SIM_START), null when it did not. */
  leftAt: number | null;
  /**
   * For a PR that did not merge but could have in another queue: the soonest it could merge (ms since SIM_START). The
   * oracle sets it on a PR whose run outlasts its timeout; the PR's time to merge is then censored there.
   */
  mergesNotBefore?: number;
  /** Its failure likelihood as the engine estimated it when it became ready (absent when it never became ready). */
  likelihood?: number;
}

export interface RunOutcome {
  id: string;
  kind: 'main' | 'bisection';
  status: TestRunStatus;
  /** Offsets from SIM_START, ms; `endedAt` is the end of the simulation for a run still in progress. */
  startedAt: number;
  endedAt: number;
  /** The PRs under test, and the PRs ahead of them in its test branch. */
  prs: number[];
  basePrs: number[];
  /** A run of a PR isolated by speculation by likelihood. */
  speculative?: true;
}

export interface QueueOutcome {
  prs: PrOutcome[];
  runs: RunOutcome[];
  /** When the simulation ended (ms since SIM_START): the queue emptied after the arrivals, or the drain period ended. */
  endAt: number;
  /** Inputs the engine processed (each one store transaction). */
  events: number;
  /** The queue held more than the scenario's `saturationDepth` PRs, and its simulation stopped then (at `endAt`). */
  saturated: boolean;
  log?: EventLog;
}

export interface QueueRunOptions {
  scenario: Scenario;
  seed: number;
  settings: QueuePatch;
  arrivals: readonly Arrival[];
  /** Keep the event log with per-event digests (for `replay`). */
  record?: boolean;
  /** Label of the log's source. */
  label?: string;
  /** Benchmarks: a failure predictor that replaces the engine's likelihood model, given each PR's arrival. */
  predictor?: (arrival: Arrival) => number;
  /** Take the merge estimate's calibration samples (the estimates' judge does; off otherwise: they cost CPU). */
  sampleEstimates?: boolean;
  /** Called now and then with the virtual time reached (ms since SIM_START). */
  onProgress?: (at: number) => void;
  /** The queue policy to create the queue under (engine/model/policy.ts); absent: the current one. Benchmarks: before and after. */
  policy?: number;
  /** Called after each step has settled, with the engine and the queue (benchmarks read estimates there). */
  onStep?: (engine: Engine, key: QueueKey) => void;
  /** Tests: the store to run the queue in (a data folder, to fit it back with `sim --from-queue`); else a memory one. */
  store?: Store;
  /** Benchmarks: another scenario CI (bench/variance.ts measures the draws of an earlier one against today's). */
  ci?: (scheduler: VirtualScheduler, options: ScenarioCiOptions) => ScenarioCi;
}

export class SimulationError extends Error {}

export async function runQueue(options: QueueRunOptions): Promise<QueueOutcome> {
  const { scenario, arrivals } = options;
  const scheduler = new VirtualScheduler(SIM_START);
  const store: Store =
    options.record === true
      ? new RecordingStore(options.store ?? createMemoryStore())
      : (options.store ?? createMemoryStore());
  const broken = new Set(arrivals.filter((arrival) => arrival.broken).map((arrival) => arrival.number));
  const isBroken = (number: number) => broken.has(number);
  const ciOptions: ScenarioCiOptions = {
    seed: options.seed,
    medianMinutes: scenario.ci.medianMinutes,
    p90Minutes: scenario.ci.p90Minutes,
    flakeRate: scenario.flakeRate,
    isBroken,
  };
  const ci = options.ci?.(scheduler, ciOptions) ?? new ScenarioCi(scheduler, ciOptions);
  const failures: string[] = [];
  const byNumber = new Map(arrivals.map((arrival) => [arrival.number, arrival]));
  const gitHost = new TreeGitHost(isBroken, (number) => {
    const arrival = byNumber.get(number);
    return arrival?.author === undefined ? {} : { author: arrival.author, changedLines: arrival.changedLines ?? 0 };
  });
  const engine = new Engine(store, {
    scheduler,
    gitHost,
    ci,
    onError: (message, error) => failures.push(`${message}: ${error instanceof Error ? error.message : String(error)}`),
    ...(options.predictor === undefined ? {} : { predictor: predictorOf(options.predictor, byNumber) }),
    sampleEstimates: options.sampleEstimates ?? false,
  });
  const key = SIM_KEY;
  let queueId = '';
  ci.attach((runId) => {
    const run = engine.testRun(queueId, runId);
    if (run === undefined) throw new SimulationError(`run ${runId} started, but the engine does not know it`);
    return { prs: run.prs, basePrs: run.basePrs, baseTree: gitHost.treeOf(run.baseSha) };
  });
  let events = 0;
  engine.onInput(() => events++);
  const check = () => {
    if (failures.length > 0) throw new SimulationError(`the engine failed during the simulation: ${failures[0]}`);
  };

  engine.start();
  queueId = engine.createQueue(
    key,
    { ...options.settings, requiredStatuses: [SCENARIO_CI_CONTEXT] },
    undefined,
    options.policy,
  ).id;
  await engine.settle();
  const parallel = options.settings.mode === 'parallel';
  const arrivalsEnd = SIM_START + scenario.hours * HOUR_MS;
  const limit = arrivalsEnd + scenario.drainHours * HOUR_MS;
  const enqueued = () => engine.queueDepth(key);

  let next = 0;
  let steps = 0;
  let endAt = limit;
  let saturated = false;
  for (;;) {
    const arrival = arrivals[next];
    const arrivalAt = arrival === undefined ? Infinity : SIM_START + arrival.at;
    const dueAt = scheduler.nextDueAt() ?? Infinity;
    if (arrival === undefined) {
      // Every PR has arrived. The simulation ends when the queue is empty, or when it waits for nothing that will ever
      // come: then its PRs stay queued until the drain period ends.
      const empty = enqueued() === 0;
      if (empty || dueAt === Infinity) {
        endAt = empty ? Math.max(scheduler.now(), arrivalsEnd) : limit;
        break;
      }
    }
    const at = Math.min(arrivalAt, dueAt);
    if (at > limit) break;
    const arrived = arrival !== undefined && arrivalAt <= dueAt;
    if (arrived) {
      scheduler.advanceTo(arrivalAt);
      engine.submitPullRequest(
        key,
        arrival.number,
        arrival.priority === undefined ? {} : { priority: arrival.priority },
      );
      if (parallel) {
        const facts = await gitHost.pullRequest(key.repo, arrival.number, key.branch);
        applyTargets(engine, key, { number: arrival.number, sha: facts.sha }, arrival.targets ?? []);
      }
      next++;
    } else {
      scheduler.advanceTo(dueAt);
    }
    await engine.settle();
    check();
    options.onStep?.(engine, key);
    // Only an arrival deepens the queue. Past the bound the queue cannot keep up, and every event would cost more.
    if (arrived && enqueued() > scenario.saturationDepth) {
      saturated = true;
      endAt = scheduler.now();
      break;
    }
    if (options.onProgress !== undefined && ++steps % 256 === 0) options.onProgress(scheduler.now() - SIM_START);
  }
  engine.stop();
  check();

  const outcome = collect(store, queueId, arrivals, endAt, events, saturated);
  if (options.record === true) outcome.log = eventLogOf(store, queueId, options.label ?? `sim: ${scenario.name}`);
  options.onProgress?.(endAt - SIM_START);
  return outcome;
}

function predictorOf(
  predictor: (arrival: Arrival) => number,
  byNumber: ReadonlyMap<number, Arrival>,
): FailurePredictor {
  return (pr) => {
    const arrival = byNumber.get(pr.number);
    return arrival === undefined ? undefined : predictor(arrival);
  };
}

function collect(
  store: Store,
  queueId: string,
  arrivals: readonly Arrival[],
  endAt: number,
  events: number,
  saturated: boolean,
): QueueOutcome {
  return store.read((tx) => {
    const prs = arrivals.map((arrival): PrOutcome => {
      const record = tx.get('pullRequests', [queueId, arrival.number]);
      const state = record?.state ?? 'NOT_READY';
      const final = !isEnqueued(state);
      return {
        number: arrival.number,
        arrivedAt: arrival.at,
        broken: arrival.broken,
        state,
        leftAt: final && record !== undefined ? Date.parse(record.stateChangedAt) - SIM_START : null,
        ...(record?.readyLikelihood === undefined ? {} : { likelihood: record.readyLikelihood.p }),
      };
    });
    const runs = [...tx.scan('testRuns', { prefix: [queueId] })].map(
      ({ value: run }): RunOutcome => ({
        id: run.id,
        kind: run.kind,
        status: run.status,
        startedAt: Date.parse(run.createdAt) - SIM_START,
        endedAt: (run.endedAt === null ? endAt : Date.parse(run.endedAt)) - SIM_START,
        prs: run.prs,
        basePrs: run.basePrs,
        ...(run.bisectionId?.startsWith('s') === true ? { speculative: true as const } : {}),
      }),
    );
    return { prs, runs, endAt: endAt - SIM_START, events, saturated };
  });
}
