/**
 * Where the runs of a batching queue go beyond the closed form (issue 28): each run's cost is shared by the PRs it
 * tested, and the PRs are told apart by what became of them. A good PR tested once on the main line costs its share of
 * its batch (and of that batch's bisection, when the batch failed); one tested there again after a bisection found it
 * good (its pass could not stand: the main line had moved on without it) costs a second batch share, and a second
 * bisection share when that batch fails too. Cancelled runs are counted apart.
 */
import type { QueueOutcome } from '../sim/queueRun.js';
import { halvingRunsPerChange, skipRedundantRunsPerChange } from '../sim/theory.js';

export interface ExcessProfile {
  /** Share of all runs spent on good PRs tested on the main line more than once, and how many such PRs. */
  retestedShare: number;
  retested: number;
  /** Runs per PR of good PRs tested on the main line once, and of those tested there again. */
  onceRunsPerPr: number;
  againRunsPerPr: number;
  /** Share of all runs cancelled (a base that changed under them). */
  cancelledShare: number;
  /** Bisection passes whose PRs were tested again afterwards, of all bisection passes. */
  stalePasses: number;
  passes: number;
  /**
   * The runs had every PR been resolved on its first main-line trip: each main-line batch of PRs on their first trip
   * (the batches as the queue formed them), one run, then bisected with every pass standing, on the PRs' actual
   * outcomes (halving, or skip-redundant). Per change: the closed form's figure for the batches as they were.
   */
  idealRuns: number;
  resolved: number;
  /** Every run, cancelled ones too. */
  runs: number;
  /**
   * The passes that could not stand at their PRs' share of a full batch (PRs / the largest batch), runs per change:
   * what testing them again costs when their batch passes. (A batch that would have been partial anyway takes them for
   * less; one that fails bisects them again, for more.)
   */
  staleFloor: number;
  /** The batches' first trips (see batchSizes). */
  sizes: BatchSizes;
}

/**
 * The sizes of the main-line batches as the queue formed them, counting only the PRs on their first trip (a PR tested
 * there again after a bisection found it good is not new work), and what the closed form says of those sizes.
 */
export interface BatchSizes {
  batches: number;
  /** Mean PRs on their first trip per batch, and the mean PRs tested again per batch that had first-trip PRs. */
  meanFirstTrip: number;
  meanAgain: number;
  /** Share of batches with fewer first-trip PRs than batchingMinSize. */
  partialShare: number;
  /** The closed form at each batch's first-trip size, per change (Σ n · c(n) / Σ n), for broken rate `p`. */
  closedFormAsFormed: number;
  /** The closed form at batchingMinSize, per change (the goal's). */
  closedForm: number;
}

/** The batch sizes of the first trips (see BatchSizes); `minSize` is batchingMinSize, `p` the scenario's broken rate. */
export function batchSizes(outcome: QueueOutcome, skip: boolean, minSize: number, p: number): BatchSizes {
  const form = skip ? skipRedundantRunsPerChange : halvingRunsPerChange;
  const seen = new Set<number>();
  let batches = 0;
  let first = 0;
  let again = 0;
  let partial = 0;
  let runs = 0;
  for (const run of [...outcome.runs].sort((a, b) => a.startedAt - b.startedAt)) {
    if (run.kind !== 'main' || run.status === 'cancelled') continue;
    const fresh = run.prs.filter((number) => !seen.has(number));
    for (const number of fresh) seen.add(number);
    if (fresh.length === 0) continue;
    batches++;
    first += fresh.length;
    again += run.prs.length - fresh.length;
    if (fresh.length < minSize) partial++;
    runs += fresh.length * form(p, fresh.length);
  }
  const per = (value: number) => (batches === 0 ? 0 : value / batches);
  return {
    batches,
    meanFirstTrip: per(first),
    meanAgain: per(again),
    partialShare: per(partial),
    closedFormAsFormed: first === 0 ? 0 : runs / first,
    closedForm: form(p, minSize),
  };
}

/** Runs to find the broken PRs of a group known to fail, with every pass standing (a PR alone: none). */
function bisectionRuns(members: readonly number[], broken: ReadonlySet<number>, skip: boolean): number {
  if (members.length <= 1) return 0;
  const half = Math.ceil(members.length / 2);
  const [first, second] = [members.slice(0, half), members.slice(half)];
  const fails = (group: readonly number[]) => group.some((number) => broken.has(number));
  if (!skip)
    return 2 + [first, second].reduce((sum, group) => sum + (fails(group) ? bisectionRuns(group, broken, skip) : 0), 0);
  // Skip-redundant: the first half first; if it passes the second is known to fail; if not, the second is tested too.
  if (!fails(first)) return 1 + bisectionRuns(second, broken, skip);
  return 2 + bisectionRuns(first, broken, skip) + (fails(second) ? bisectionRuns(second, broken, skip) : 0);
}

/** The ideal runs of the first trips (see ExcessProfile.idealRuns). */
export function idealRuns(outcome: QueueOutcome, skip: boolean): number {
  const broken = new Set(outcome.prs.filter((pr) => pr.broken).map((pr) => pr.number));
  const seen = new Set<number>();
  let runs = 0;
  for (const run of [...outcome.runs].sort((a, b) => a.startedAt - b.startedAt)) {
    if (run.kind !== 'main' || run.status === 'cancelled') continue;
    const first = run.prs.filter((number) => !seen.has(number));
    for (const number of first) seen.add(number);
    if (first.length === 0) continue;
    runs += 1 + (first.some((number) => broken.has(number)) ? bisectionRuns(first, broken, skip) : 0);
  }
  return runs;
}

export function excessProfile(
  outcome: QueueOutcome,
  skip = false,
  minSize = 1,
  p = 0,
  largest = minSize,
): ExcessProfile {
  const cost = new Map<number, number>();
  const mainRuns = new Map<number, number>();
  const add = (map: Map<number, number>, key: number, value: number) => map.set(key, (map.get(key) ?? 0) + value);
  let cancelled = 0;
  for (const run of outcome.runs) {
    for (const number of run.prs) add(cost, number, 1 / run.prs.length);
    if (run.status === 'cancelled') cancelled++;
    else if (run.kind === 'main') for (const number of run.prs) add(mainRuns, number, 1);
  }
  let once = 0;
  let onceCost = 0;
  let again = 0;
  let againCost = 0;
  for (const pr of outcome.prs) {
    if (pr.broken) continue;
    const tested = mainRuns.get(pr.number) ?? 0;
    if (tested > 1) {
      again++;
      againCost += cost.get(pr.number) ?? 0;
    } else if (tested === 1) {
      once++;
      onceCost += cost.get(pr.number) ?? 0;
    }
  }
  const runs = [...outcome.runs].sort((a, b) => a.startedAt - b.startedAt);
  let passes = 0;
  let stale = 0;
  let staleShares = 0;
  runs.forEach((run, at) => {
    if (run.kind !== 'bisection' || run.status !== 'succeeded') return;
    passes++;
    const members = new Set(run.prs);
    if (
      runs
        .slice(at + 1)
        .some((later) => later.startedAt >= run.endedAt && later.prs.some((number) => members.has(number)))
    ) {
      stale++;
      staleShares += run.prs.length / largest;
    }
  });
  const total = Math.max(1, outcome.runs.length);
  const resolved = outcome.prs.filter((pr) => pr.leftAt !== null).length;
  return {
    retestedShare: againCost / total,
    retested: again,
    onceRunsPerPr: once === 0 ? 0 : onceCost / once,
    againRunsPerPr: again === 0 ? 0 : againCost / again,
    cancelledShare: cancelled / total,
    stalePasses: stale,
    passes,
    idealRuns: idealRuns(outcome, skip),
    resolved,
    runs: outcome.runs.length,
    sizes: batchSizes(outcome, skip, minSize, p),
    staleFloor: staleShares / Math.max(1, resolved),
  };
}

export function describeExcess(profile: ExcessProfile): string {
  const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
  return (
    `excess: ${profile.stalePasses} of ${profile.passes} bisection passes could not stand; ${profile.retested} good PRs tested on the main line again ` +
    `took ${percent(profile.retestedShare)} of the runs (${profile.againRunsPerPr.toFixed(2)} runs each, against ${profile.onceRunsPerPr.toFixed(2)} for one tested once); ` +
    `cancelled runs ${percent(profile.cancelledShare)}; the batches as formed, every pass standing: ${(profile.idealRuns / Math.max(1, profile.resolved)).toFixed(3)} runs per change` +
    `\n    batches as formed: ${profile.sizes.batches} with ${profile.sizes.meanFirstTrip.toFixed(2)} PRs on their first trip (+ ${profile.sizes.meanAgain.toFixed(2)} tested again), ` +
    `${percent(profile.sizes.partialShare)} below batchingMinSize; the closed form at those sizes: ${profile.sizes.closedFormAsFormed.toFixed(3)} runs per change` +
    `\n    ${profileLine(profile)}`
  );
}

/**
 * Runs per change from the closed form at batchingMinSize to what the queue ran, step by step: the batch sizes as
 * formed, the PRs' actual outcomes (every pass standing), the passes that could not stand (at least their batch
 * share: staleFloor) and the rest of their retests, cancelled runs.
 */
export function profileLine(profile: ExcessProfile): string {
  const { closedForm, closedFormAsFormed } = profile.sizes;
  const perChange = (runs: number) => runs / Math.max(1, profile.resolved);
  const ideal = perChange(profile.idealRuns);
  const ran = perChange(profile.runs);
  const cancelled = perChange(profile.runs * profile.cancelledShare);
  const sign = (value: number) => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}`;
  return (
    `profile (runs per change): closed form ${closedForm.toFixed(3)}; sizes as formed ${sign(closedFormAsFormed - closedForm)}; ` +
    `the PRs' outcomes, every pass standing ${sign(ideal - closedFormAsFormed)} = ${ideal.toFixed(3)}; ` +
    `passes that could not stand, their batch shares ${sign(profile.staleFloor)} and the rest of their retests ${sign(ran - cancelled - ideal - profile.staleFloor)}; ` +
    `cancelled runs ${sign(cancelled)}; ran ${ran.toFixed(3)} = ${(ran / closedForm).toFixed(2)}×`
  );
}
