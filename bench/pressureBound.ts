/**
 * How few CI runs per merged PR the busy monorepo's policy class can spend (issue 28): PRs whose line holds an open
 * outcome tested alone first, then decided by a main-line run on top of their line, where a passing run decides every
 * PR of its base (optimistic merge). The queue spends one main-line run per PR (a later run that held it often ends
 * first: the earlier one is cancelled), so its runs per merge are about 1 + the share tested alone. Fewer needs runs
 * shared: a PR waits for a run of a PR behind it that holds it.
 *
 * The bound: a clairvoyant planner that knows when every PR becomes ready for its main-line run (the start of its first
 * main-line run in the simulated queue) and lets each wait at most W minutes for a run that covers it. Greedy: the
 * first PR not yet covered is covered by the run of the latest PR ready within W of it whose base holds it; that run
 * covers every PR of its base (and its own) ready in the W minutes before it. Everything else is kept as the queue
 * spent it: the runs alone, bisections and retests, and the main-line runs that failed or were reset (the sharing
 * planner's runs are assumed to pass and hold). So it is an optimistic estimate for any policy of the class with waits
 * of at most W: it ignores what sharing does to the line (more PRs unsettled for longer, which measured more runs stacked
 * on broken PRs, docs/failure-policy.md). P50 is each merged PR's time to merge plus its wait.
 *
 * `tsx bench/pressureBound.ts [--seeds 1,2,3] [--hours 24] [--waits 0,5,10,20,30] [--skew 1] [--all 0.01]`
 */
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { runOracle } from '../sim/oracle.js';
import { runQueue, type QueueOutcome, type RunOutcome } from '../sim/queueRun.js';
import { parseScenario } from '../sim/scenario.js';
import { MONOREPO, MONOREPO_CONFIGS } from './monorepoWorkload.js';

export interface SharedMainLine {
  waitMinutes: number;
  /** Main-line runs the clairvoyant sharing needs for the merged PRs' verdicts. */
  sharedRuns: number;
  runsPerMerge: number;
  /** Mean wait of a merged PR for the run that covers it, minutes. */
  meanWait: number;
  p50: number;
}

const MINUTE = 60_000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

/** The kept runs (not main-line runs that passed or were cancelled for a later run's verdict) and the merged PRs. */
function keptRuns(outcome: QueueOutcome): { kept: number; merged: Set<number> } {
  const merged = new Set(outcome.prs.filter((pr) => pr.state === 'MERGED').map((pr) => pr.number));
  const leftAt = new Map(outcome.prs.map((pr) => [pr.number, pr.leftAt]));
  const vouched = (run: RunOutcome) =>
    run.status === 'cancelled' && run.prs.every((n) => Math.abs((leftAt.get(n) ?? Number.NaN) - run.endedAt) < 1_000);
  const kept = outcome.runs.filter(
    (run) => run.kind !== 'main' || (run.status !== 'succeeded' && !vouched(run)),
  ).length;
  return { kept, merged };
}

/** The clairvoyant sharing of the main-line runs, for each wait bound. */
export function sharedMainLine(outcome: QueueOutcome, waits: readonly number[]): SharedMainLine[] {
  const { kept, merged } = keptRuns(outcome);
  // When each merged PR was first ready for a main-line run, and the base of its first main-line run.
  const ready = new Map<number, { at: number; base: number[] }>();
  for (const run of [...outcome.runs].sort((a, b) => a.startedAt - b.startedAt)) {
    if (run.kind !== 'main') continue;
    for (const number of run.prs)
      if (merged.has(number) && !ready.has(number)) ready.set(number, { at: run.startedAt, base: run.basePrs });
  }
  // Per PR, the PRs behind it whose base holds it (the runs that can cover it).
  const coveredBy = new Map<number, number[]>();
  for (const [number, { base }] of ready)
    for (const ahead of base) if (ready.has(ahead)) coveredBy.set(ahead, [...(coveredBy.get(ahead) ?? []), number]);
  const order = [...ready.keys()].sort((a, b) => (ready.get(a)?.at ?? 0) - (ready.get(b)?.at ?? 0));
  const ttm = new Map(
    outcome.prs.flatMap((pr) =>
      merged.has(pr.number) && pr.leftAt !== null ? [[pr.number, pr.leftAt - pr.arrivedAt]] : [],
    ),
  ) as Map<number, number>;
  return waits.map((waitMinutes) => {
    const limit = waitMinutes * MINUTE;
    const wait = new Map<number, number>();
    let sharedRuns = 0;
    for (const number of order) {
      if (wait.has(number)) continue;
      const at = ready.get(number)?.at as number;
      let runner = number;
      for (const other of coveredBy.get(number) ?? []) {
        const otherAt = ready.get(other)?.at as number;
        if (otherAt >= at && otherAt <= at + limit && otherAt >= (ready.get(runner)?.at as number) && !wait.has(other))
          runner = other;
      }
      const start = ready.get(runner)?.at as number;
      sharedRuns++;
      for (const covered of [runner, ...(ready.get(runner)?.base ?? [])]) {
        const coveredAt = ready.get(covered)?.at;
        if (coveredAt === undefined || wait.has(covered) || coveredAt > start || start - coveredAt > limit) continue;
        wait.set(covered, start - coveredAt);
      }
    }
    const waitsOf = [...wait.values()];
    return {
      waitMinutes,
      sharedRuns,
      runsPerMerge: (kept + sharedRuns) / Math.max(1, merged.size),
      meanWait: waitsOf.reduce((sum, value) => sum + value, 0) / Math.max(1, waitsOf.length) / MINUTE,
      p50: median([...ttm].map(([number, time]) => time + (wait.get(number) ?? 0))) / MINUTE,
    };
  });
}

async function main(): Promise<void> {
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const seeds = (option('--seeds') ?? '1,2,3').split(',').map(Number);
  const hours = Number(option('--hours') ?? MONOREPO.hours);
  const waits = (option('--waits') ?? '0,5,10,20,30').split(',').map(Number);
  const targets = {
    ...MONOREPO.targets,
    skew: Number(option('--skew') ?? MONOREPO.targets.skew),
    allShare: Number(option('--all') ?? MONOREPO.targets.allShare),
  };
  const config = MONOREPO_CONFIGS.find((entry) => entry.name === 'graph-c200');
  if (config === undefined) throw new Error('no graph-c200 configuration');
  console.log(
    `the busy monorepo, ${hours} h, Zipf exponent ${targets.skew}, ${targets.allShare * 100}% ALL; ${config.name}`,
  );
  for (const seed of seeds) {
    const scenario = parseScenario({
      ...MONOREPO,
      targets,
      hours,
      seed,
      configs: [{ name: config.name, ...config.settings }],
    });
    const arrivals = drawArrivals(scenario, seed);
    const outcome = await runQueue({ scenario, seed, settings: config.settings, arrivals });
    const oracle = runOracle(scenario, seed, arrivals, 300);
    const oracleP50 = median(
      oracle.prs.flatMap((pr) => (pr.state === 'MERGED' && pr.leftAt !== null ? [pr.leftAt - pr.arrivedAt] : [])),
    );
    const merged = outcome.prs.filter((pr) => pr.state === 'MERGED').length;
    console.log(
      `seed ${seed}: ${merged} merged, ${(outcome.runs.length / merged).toFixed(2)} runs per merge as the queue spent them; oracle P50 ${(oracleP50 / MINUTE).toFixed(0)} min (goal: ≤ 3× = ${((3 * oracleP50) / MINUTE).toFixed(0)})`,
    );
    console.log(
      `  ${'wait ≤'.padStart(7)} ${'main runs'.padStart(10)} ${'runs/merge'.padStart(10)} ${'mean wait'.padStart(10)} ${'P50'.padStart(5)}`,
    );
    for (const row of sharedMainLine(outcome, waits))
      console.log(
        `  ${`${row.waitMinutes} min`.padStart(7)} ${String(row.sharedRuns).padStart(10)} ${row.runsPerMerge.toFixed(2).padStart(10)} ${row.meanWait.toFixed(1).padStart(10)} ${row.p50.toFixed(0).padStart(5)}`,
      );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
