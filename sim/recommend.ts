/**
 * `greenline sim SCENARIO.json --recommend [--budget RUNS_PER_MERGE]` (issue 22): searches the queue settings for the
 * best P50 time to merge within a CI budget (runs per merge). The grid: mode (parallel only with targets),
 * concurrency, batching (size and wait), anti-flake protection, optimizationMode (with speculation by likelihood) and
 * the adaptive window; in parallel mode, the bases (transitive, or direct with speculation along the build graph).
 * Concurrency goes up to what the load needs: the arrivals during a slow run (arrivals per hour × CI p90), and twice
 * that. The search: coordinate descent (one setting at a time, the others held, until nothing improves) on the first
 * third of the scenario's hours, then the best few re-run on the whole scenario.
 *
 * A setup keeps up when it is not saturated and, while PRs arrive, merges at least KEEPS_UP_SHARE of what the oracle
 * merges on the same arrivals (counted in the second half of the arrivals, `mergesPerHourWhileArriving`, so that
 * neither its time to merge at the start nor one slow PR draining late counts as falling behind; a queue that cannot
 * keep up merges at its capacity meanwhile).
 * Setups that keep up rank first; when none does, the recommendation says so, with the best throughput found.
 */
import type { QueuePatch } from '../engine/model/queues.js';
import type { Arrival } from './arrivals.js';
import { runOracle } from './oracle.js';
import { runQueue, type PrOutcome, type QueueOutcome } from './queueRun.js';
import { mergeTimes, percentilesOf } from './report.js';
import type { Scenario } from './scenario.js';
import { horizonsOf } from './recommendHorizons.js';
import { hasPullRequestTag } from '../machines/index.js';

export interface Setup {
  mode: 'single' | 'parallel';
  concurrency: number;
  batch: 'off' | '4/10min' | '8/30min';
  antiFlake: boolean;
  optimizationMode: 'off' | 'bisection_skip_redundant_tests' | 'speculate_by_likelihood';
  adaptiveWindow: boolean;
  /** Parallel mode's bases (ignored in single mode); absent is transitive. */
  parallelBases?: 'transitive' | 'direct';
}

/** The share of the oracle's merges per hour a setup must reach to keep up. */
export const KEEPS_UP_SHARE = 0.8;

export const GRID = {
  mode: ['single', 'parallel'],
  concurrency: [2, 4, 8, 16],
  batch: ['off', '4/10min', '8/30min'],
  antiFlake: [false, true],
  optimizationMode: ['off', 'bisection_skip_redundant_tests', 'speculate_by_likelihood'],
  adaptiveWindow: [false, true],
  parallelBases: ['transitive', 'direct'],
} as const satisfies { [K in keyof Setup]-?: readonly NonNullable<Setup[K]>[] };

export interface Evaluation {
  setup: Setup;
  p50: number;
  runsPerMerge: number;
  /** Merges per hour while PRs arrive (the oracle's likewise). */
  mergedPerHour: number;
  saturated: boolean;
  /** Not saturated, and at least KEEPS_UP_SHARE of the oracle's merges per hour. */
  keepsUp: boolean;
  oracleMergedPerHour: number;
}

export function settingsOfSetup(setup: Setup): QueuePatch {
  const [size, wait] = setup.batch === 'off' ? [0, 0] : setup.batch.split(/[/a-z]+/).map(Number);
  return {
    mode: setup.mode,
    concurrency: setup.concurrency,
    ...(setup.batch === 'off' ? {} : { batch: true, batchingMinSize: size, batchingMaxWaitTimeMinutes: wait }),
    ...(setup.antiFlake ? { pendingFailureDepth: 1, canOptimisticallyMerge: true } : {}),
    ...(setup.optimizationMode === 'off' ? {} : { optimizationMode: setup.optimizationMode }),
    ...(setup.adaptiveWindow ? { adaptiveWindow: true } : {}),
    ...(setup.mode === 'parallel' && setup.parallelBases === 'direct' ? { parallelBases: 'direct' as const } : {}),
  };
}

export const keyOf = (setup: Setup) => JSON.stringify(setup);

export function describeSetup(setup: Setup): string {
  const parts = [
    `${setup.mode}`,
    `concurrency ${setup.concurrency}`,
    setup.batch === 'off' ? 'no batching' : `batch ${setup.batch}`,
  ];
  if (setup.antiFlake) parts.push('anti-flake');
  if (setup.optimizationMode !== 'off') parts.push(setup.optimizationMode);
  if (setup.adaptiveWindow) parts.push('adaptive window');
  if (setup.mode === 'parallel' && setup.parallelBases === 'direct') parts.push('direct bases');
  return parts.join(', ');
}

/**
 * Merges per hour while PRs arrive, in the second half of the arrivals: a queue that keeps up merges about what
 * arrives there whatever its time to merge, where counted from the start it would fall short by its time to merge
 * (a queue with a P50 of 47 minutes merges 0.79× the oracle's over the first two hours, at the same rate since the
 * first hour). A queue that saturated (stopped before the arrivals end) is counted from the start to its end.
 */
export function mergesPerHourWhileArriving(
  result: { prs: readonly Pick<PrOutcome, 'state' | 'leftAt'>[]; endAt: number },
  arrivalsEnd: number,
): number {
  const until = Math.min(arrivalsEnd, result.endAt);
  const from = until >= arrivalsEnd ? arrivalsEnd / 2 : 0;
  const merged = result.prs.filter(
    (pr) => hasPullRequestTag(pr.state, 'merged') && pr.leftAt !== null && pr.leftAt > from && pr.leftAt <= until,
  ).length;
  return merged / Math.max(1e-9, (until - from) / 3_600_000);
}

/** Runs one setup on the scenario cut to `hours` of arrivals. */
export async function evaluate(
  scenario: Scenario,
  arrivals: readonly Arrival[],
  seed: number,
  setup: Setup,
  hours = scenario.hours,
): Promise<Evaluation> {
  const cut = hours >= scenario.hours ? arrivals : arrivals.filter((arrival) => arrival.at < hours * 3_600_000);
  const cutScenario = { ...scenario, hours };
  const settings = settingsOfSetup(setup);
  const outcome = await runQueue({ scenario: cutScenario, seed, settings, arrivals: cut });
  const arrivalsEnd = hours * 3_600_000;
  const perHour = (result: QueueOutcome) => mergesPerHourWhileArriving(result, arrivalsEnd);
  const merged = outcome.prs.filter((pr) => hasPullRequestTag(pr.state, 'merged')).length;
  const p50 = percentilesOf(mergeTimes(outcome)).p50;
  const oracle = runOracle(cutScenario, seed, cut, settings.testingTimeoutMinutes ?? 300);
  const mergedPerHour = perHour(outcome);
  const oracleMergedPerHour = perHour(oracle);
  return {
    setup,
    p50: outcome.saturated || p50 === null ? Infinity : p50,
    runsPerMerge: outcome.runs.length / Math.max(1, merged),
    mergedPerHour,
    saturated: outcome.saturated,
    keepsUp: !outcome.saturated && mergedPerHour >= KEEPS_UP_SHARE * oracleMergedPerHour,
    oracleMergedPerHour,
  };
}

/**
 * Better: keeping up first, then within the budget; among setups that keep up the lower P50; among those that fall
 * behind more merges per hour first (the P50 of a queue falling behind grows with the horizon: ranked first, it
 * could pick a setup that merges less, against the README's "the pick is the one that merges most"); then fewer runs
 * per merge.
 */
export function better(budget: number | undefined) {
  return (a: Evaluation, b: Evaluation): number => {
    const over = (e: Evaluation) => (budget !== undefined && e.runsPerMerge > budget ? 1 : 0);
    const behind = (e: Evaluation) => (e.keepsUp === false ? 1 : 0);
    const first = behind(a) - behind(b) || over(a) - over(b);
    if (first !== 0) return first;
    const merges = b.mergedPerHour - a.mergedPerHour;
    const p50 = a.p50 - b.p50;
    return (behind(a) === 1 ? merges || p50 : p50 || merges) || a.runsPerMerge - b.runsPerMerge;
  };
}

/** The concurrency the load needs: the PRs that arrive during a slow (p90) run. */
export function loadConcurrency(scenario: Pick<Scenario, 'arrivalsPerHour' | 'ci'>): number {
  return Math.max(1, Math.ceil((scenario.arrivalsPerHour * scenario.ci.p90Minutes) / 60));
}

export function gridFor(scenario: Scenario): { [K in keyof Setup]-?: readonly NonNullable<Setup[K]>[] } {
  const load = loadConcurrency(scenario);
  const concurrency = [...new Set([...GRID.concurrency, load, 2 * load])].sort((a, b) => a - b);
  const parallel = scenario.targets !== undefined;
  return {
    ...GRID,
    concurrency,
    mode: parallel ? GRID.mode : ['single'],
    parallelBases: parallel ? GRID.parallelBases : ['transitive'],
  };
}

export interface Recommendation {
  best: Evaluation;
  runnersUp: Evaluation[];
  overBudget: number;
  evaluated: number;
  /** The hours of arrivals screened, those the finalists ran (horizonsOf), and the scenario's. */
  screenHours?: number;
  finalHours?: number;
  hours?: number;
}

export async function recommend(
  scenario: Scenario,
  arrivals: readonly Arrival[],
  seed: number,
  budget?: number,
): Promise<Recommendation> {
  const grid = gridFor(scenario);
  const { screenHours, finalHours } = horizonsOf(scenario);
  const cache = new Map<string, Evaluation>();
  const screen = async (asked: Setup) => {
    // Single mode has no bases to choose: one setup, one simulation.
    const setup: Setup = asked.mode === 'single' ? { ...asked, parallelBases: 'transitive' } : asked;
    const key = keyOf(setup);
    let found = cache.get(key);
    if (found === undefined) {
      found = await evaluate(scenario, arrivals, seed, setup, screenHours);
      cache.set(key, found);
    }
    return found;
  };
  const order = better(budget);
  let current: Setup = {
    mode: 'single',
    concurrency: 4,
    batch: 'off',
    antiFlake: false,
    optimizationMode: 'off',
    adaptiveWindow: false,
    parallelBases: 'transitive',
  };
  let currentEval = await screen(current);
  for (let pass = 0; pass < 3; pass++) {
    let moved = false;
    for (const name of Object.keys(grid) as (keyof Setup)[]) {
      for (const value of grid[name]) {
        const candidate = { ...current, [name]: value } as Setup;
        const evaluation = await screen(candidate);
        if (order(evaluation, currentEval) < 0) {
          current = candidate;
          currentEval = evaluation;
          moved = true;
        }
      }
    }
    if (!moved) break;
  }
  // The best few of the screening, on the whole scenario.
  const finalists = [...cache.values()].sort(order).slice(0, 5);
  const full = [];
  for (const finalist of finalists) full.push(await evaluate(scenario, arrivals, seed, finalist.setup, finalHours));
  full.sort(order);
  const [best, ...runnersUp] = full as [Evaluation, ...Evaluation[]];
  const overBudget = [...cache.values()].filter((e) => budget !== undefined && e.runsPerMerge > budget).length;
  return {
    best,
    runnersUp,
    overBudget,
    evaluated: cache.size + full.length,
    screenHours,
    finalHours,
    hours: scenario.hours,
  };
}

/** Why a runner-up lost to the pick, in figures and in the settings that differ. */
export function whyNot(best: Evaluation, other: Evaluation, budget: number | undefined): string {
  const differs = (Object.keys(best.setup) as (keyof Setup)[])
    .filter((name) => best.setup[name] !== other.setup[name])
    .map((name) => `${name} ${String(other.setup[name])} (pick: ${String(best.setup[name])})`);
  const p50 = (e: Evaluation) => (e.p50 === Infinity ? 'saturated' : `${e.p50.toFixed(0)} min`);
  const over =
    budget !== undefined && other.runsPerMerge > budget ? `; over the budget of ${budget} runs per merge` : '';
  return `P50 ${p50(other)} vs ${p50(best)}, ${other.runsPerMerge.toFixed(2)} vs ${best.runsPerMerge.toFixed(2)} runs/merge${over}; differs in ${differs.join(', ') || 'nothing'}`;
}

export function formatRecommendation(rec: Recommendation, budget: number | undefined): string {
  const line = (e: Evaluation) =>
    `${describeSetup(e.setup)}: P50 ${e.p50 === Infinity ? 'saturated' : `${e.p50.toFixed(0)} min`}, ${e.runsPerMerge.toFixed(2)} CI runs per merge, ${e.mergedPerHour.toFixed(2)} merged/h while PRs arrive`;
  const lines = [
    `recommended (${budget === undefined ? 'no CI budget' : `budget ${budget} runs per merge`}; ${rec.evaluated} simulations):`,
    `  ${line(rec.best)}`,
  ];
  if (rec.finalHours !== undefined && rec.hours !== undefined && rec.finalHours < rec.hours) {
    lines.push(
      `  (screened on the first ${rec.screenHours} h of arrivals, the finalists on the first ${rec.finalHours} h of the scenario's ${rec.hours})`,
    );
  }
  if (!rec.best.keepsUp) {
    lines.push(
      `  no setup screened keeps up with this load: the best merges ${rec.best.mergedPerHour.toFixed(2)}/h while PRs arrive against the oracle's ${rec.best.oracleMergedPerHour.toFixed(2)} (keeping up: not saturated and at least ${KEEPS_UP_SHARE}× the oracle's)`,
    );
  } else if (budget !== undefined && rec.best.runsPerMerge > budget)
    lines.push(`  no setup met the budget: this is the best P50 found, over it`);
  lines.push('runners-up:');
  for (const other of rec.runnersUp.slice(0, 3))
    lines.push(`  ${line(other)}`, `    why not: ${whyNot(rec.best, other, budget)}`);
  if (rec.overBudget > 0) lines.push(`${rec.overBudget} setup(s) screened needed more than the budget`);
  lines.push('settings (updateQueue):', `  ${JSON.stringify(settingsOfSetup(rec.best.setup))}`);
  return lines.join('\n');
}
