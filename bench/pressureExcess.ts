/**
 * Where the runs of a batching queue go beyond the closed form (issue 28): each run's cost is shared by the PRs it
 * tested, and the PRs are told apart by what became of them. A good PR tested once on the main line costs its share of
 * its batch (and of that batch's bisection, when the batch failed); one tested there again after a bisection found it
 * good (its pass could not stand: the main line had moved on without it) costs a second batch share, and a second
 * bisection share when that batch fails too. Cancelled runs are counted apart.
 */
import type { QueueOutcome } from '../sim/queueRun.js';

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
}

/** Runs to find the broken PRs of a group known to fail, with every pass standing (a PR alone: none). */
function bisectionRuns(members: readonly number[], broken: ReadonlySet<number>, skip: boolean): number {
  if (members.length <= 1) return 0;
  const half = Math.ceil(members.length / 2);
  const [first, second] = [members.slice(0, half), members.slice(half)];
  const fails = (group: readonly number[]) => group.some((number) => broken.has(number));
  if (!skip) return 2 + [first, second].reduce((sum, group) => sum + (fails(group) ? bisectionRuns(group, broken, skip) : 0), 0);
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

export function excessProfile(outcome: QueueOutcome, skip = false): ExcessProfile {
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
  runs.forEach((run, at) => {
    if (run.kind !== 'bisection' || run.status !== 'succeeded') return;
    passes++;
    const members = new Set(run.prs);
    if (runs.slice(at + 1).some((later) => later.startedAt >= run.endedAt && later.prs.some((number) => members.has(number)))) stale++;
  });
  const total = Math.max(1, outcome.runs.length);
  return {
    retestedShare: againCost / total,
    retested: again,
    onceRunsPerPr: once === 0 ? 0 : onceCost / once,
    againRunsPerPr: again === 0 ? 0 : againCost / again,
    cancelledShare: cancelled / total,
    stalePasses: stale,
    passes,
    idealRuns: idealRuns(outcome, skip),
    resolved: outcome.prs.filter((pr) => pr.leftAt !== null).length,
  };
}

export function describeExcess(profile: ExcessProfile): string {
  const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
  return (
    `excess: ${profile.stalePasses} of ${profile.passes} bisection passes could not stand; ${profile.retested} good PRs tested on the main line again ` +
    `took ${percent(profile.retestedShare)} of the runs (${profile.againRunsPerPr.toFixed(2)} runs each, against ${profile.onceRunsPerPr.toFixed(2)} for one tested once); ` +
    `cancelled runs ${percent(profile.cancelledShare)}; the batches as formed, every pass standing: ${(profile.idealRuns / Math.max(1, profile.resolved)).toFixed(3)} runs per change`
  );
}
