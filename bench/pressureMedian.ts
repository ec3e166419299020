/**
 * Where the median PR's time to merge goes (issue 28, batching half): each good PR that merged, from its arrival to its
 * merge, cut into what it waited for. `bench:pressure` prints it per seed for the heavy-tail workload, where the P50
 * is furthest from its bound.
 *
 * - fill: before its first run, up to `batchingMaxWaitTimeMinutes` (a batch waits that long for `batchingMinSize`);
 * - slot: before its first run, beyond that (no main-line slot, or a batch ahead held it);
 * - failed: in main-line runs that failed (its batch held a broken PR, or a PR ahead did);
 * - reset: in runs cancelled under it (a failure ahead, a pass that could not stand);
 * - bisection: in bisection runs that did not decide it (its group failed, or passed and could not stand);
 * - between: between those runs (waiting for a bisection slot, a sibling group, a batch to fill again);
 * - deciding: the run whose pass it merged on;
 * - after: from that run's end to its merge (behind the runs ahead of it, which merge first).
 */
import type { QueueOutcome, RunOutcome } from '../sim/queueRun.js';

const MINUTE_MS = 60_000;

export const PHASES = ['fill', 'slot', 'failed', 'reset', 'bisection', 'between', 'deciding', 'after'] as const;
export type Phase = (typeof PHASES)[number];
export type PhaseMinutes = Record<Phase, number>;

function zero(): PhaseMinutes {
  return { fill: 0, slot: 0, failed: 0, reset: 0, bisection: 0, between: 0, deciding: 0, after: 0 };
}

/** A merged good PR's time to merge, cut into phases (minutes), or null when it did not merge on a run. */
export function phasesOf(
  arrivedAt: number,
  leftAt: number,
  runs: readonly RunOutcome[],
  maxWaitMinutes: number,
): PhaseMinutes | null {
  const mine = runs
    .filter((run) => run.startedAt >= arrivedAt && run.startedAt <= leftAt)
    .sort((a, b) => a.startedAt - b.startedAt);
  const deciding = mine.findLast((run) => run.status === 'succeeded' && run.endedAt <= leftAt);
  if (deciding === undefined) return null;
  const phases = zero();
  const first = mine[0] as RunOutcome;
  const before = (first.startedAt - arrivedAt) / MINUTE_MS;
  phases.fill = Math.min(before, maxWaitMinutes);
  phases.slot = before - phases.fill;
  let at = first.startedAt;
  for (const run of mine) {
    if (run === deciding) break;
    phases.between += Math.max(0, run.startedAt - at) / MINUTE_MS;
    const spent = Math.max(0, run.endedAt - Math.max(at, run.startedAt)) / MINUTE_MS;
    if (run.kind === 'bisection') phases.bisection += spent;
    else if (run.status === 'failed') phases.failed += spent;
    else phases.reset += spent;
    at = Math.max(at, run.endedAt);
  }
  phases.between += Math.max(0, deciding.startedAt - at) / MINUTE_MS;
  phases.deciding = (deciding.endedAt - Math.max(at, deciding.startedAt)) / MINUTE_MS;
  phases.after = (leftAt - deciding.endedAt) / MINUTE_MS;
  return phases;
}

/**
 * The phases of the PRs around the median time to merge (the middle fifth of the good PRs that merged, by time to
 * merge), averaged, and the share of them whose deciding run was a bisection's.
 */
export function medianProfile(
  outcome: QueueOutcome,
  maxWaitMinutes: number,
): { phases: PhaseMinutes; prs: number; bisected: number } {
  const runsOf = new Map<number, RunOutcome[]>();
  for (const run of outcome.runs)
    for (const number of run.prs) runsOf.set(number, [...(runsOf.get(number) ?? []), run]);
  const merged = outcome.prs
    .filter((pr) => !pr.broken && pr.state === 'MERGED' && pr.leftAt !== null)
    .map((pr) => ({ pr, minutes: ((pr.leftAt as number) - pr.arrivedAt) / MINUTE_MS }))
    .sort((a, b) => a.minutes - b.minutes);
  const middle = merged.slice(Math.floor(merged.length * 0.4), Math.ceil(merged.length * 0.6));
  const sum = zero();
  let counted = 0;
  let bisected = 0;
  for (const { pr } of middle) {
    const runs = runsOf.get(pr.number) ?? [];
    const phases = phasesOf(pr.arrivedAt, pr.leftAt as number, runs, maxWaitMinutes);
    if (phases === null) continue;
    counted++;
    if (runs.some((run) => run.kind === 'bisection')) bisected++;
    for (const phase of PHASES) sum[phase] += phases[phase];
  }
  for (const phase of PHASES) sum[phase] /= Math.max(1, counted);
  return { phases: sum, prs: counted, bisected };
}

export function describeMedian(profile: ReturnType<typeof medianProfile>): string {
  const parts = PHASES.map((phase) => `${phase} ${profile.phases[phase].toFixed(1)}`).join(', ');
  const total = PHASES.reduce((sum, phase) => sum + profile.phases[phase], 0);
  return `the PRs around the P50 (${profile.prs}, ${profile.bisected} of them bisected), mean minutes: ${parts}; total ${total.toFixed(1)}`;
}
