/**
 * Where a busy monorepo's merges per hour and CI runs go (issue 28): a profile of one simulated queue against the
 * oracle of the same arrivals. Runs by what they were (main line, alone first, bisection and retests) and how they
 * ended (passed, failed, cancelled: a reset), and per heat of a PR's hottest target (the share of PRs that touch it):
 * how many PRs, merged, P50 time to merge against the oracle's, and the main-line runs per PR.
 *
 * `tsx bench/pressureProfile.ts [--seed 1] [--hours 3] [--config graph-c200] [--policy N]` (N: the queue policy, engine/model/policy.ts; absent: the current one).
 */
import { pathToFileURL } from 'node:url';
import type { Arrival } from '../sim/arrivals.js';
import type { QueueOutcome } from '../sim/queueRun.js';

export interface HeatBucket {
  name: string;
  /** Whether a PR falls in it: its targets' heat (the share of PRs touching its hottest target) within the bucket. */
  holds: (heat: number) => boolean;
}

/** The share of PRs that touch each target (ALL aside). */
export function targetHeat(arrivals: readonly Arrival[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const arrival of arrivals) {
    if (!Array.isArray(arrival.targets)) continue;
    for (const target of arrival.targets) counts.set(target, (counts.get(target) ?? 0) + 1);
  }
  return new Map([...counts].map(([target, count]) => [target, count / arrivals.length]));
}

const BUCKETS: HeatBucket[] = [
  { name: 'ALL', holds: (heat) => heat === Infinity },
  { name: 'hottest ≥ 20%', holds: (heat) => heat >= 0.2 && heat !== Infinity },
  { name: 'hottest 10–20%', holds: (heat) => heat >= 0.1 && heat < 0.2 },
  { name: 'hottest 5–10%', holds: (heat) => heat >= 0.05 && heat < 0.1 },
  { name: 'hottest < 5%', holds: (heat) => heat < 0.05 },
];

const percentile = (values: number[], q: number) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] as number;
};

const minutes = (ms: number) => (Number.isNaN(ms) ? '-' : (ms / 60_000).toFixed(0));

/** The profile's lines. */
export function profileOf(outcome: QueueOutcome, oracle: QueueOutcome, arrivals: readonly Arrival[]): string[] {
  const lines: string[] = [];
  const merged = outcome.prs.filter((pr) => pr.state === 'MERGED').length;
  const kinds = new Map<
    string,
    { passed: number; failed: number; cancelled: number; vouched: number; other: number }
  >();
  const leftAt = new Map(outcome.prs.map((pr) => [pr.number, pr.state === 'MERGED' ? pr.leftAt : null]));
  for (const run of outcome.runs) {
    const kind = run.kind === 'main' ? 'main line' : run.speculative === true ? 'alone first' : 'bisection/retest';
    const row = kinds.get(kind) ?? { passed: 0, failed: 0, cancelled: 0, vouched: 0, other: 0 };
    if (run.status === 'succeeded') row.passed++;
    else if (run.status === 'failed') row.failed++;
    else if (run.status === 'cancelled') {
      // Cancelled as its PRs merged on a later run that held them (vouched for), or reset.
      if (run.prs.every((number) => Math.abs((leftAt.get(number) ?? Number.NaN) - run.endedAt) < 1_000)) row.vouched++;
      else row.cancelled++;
    } else row.other++;
    kinds.set(kind, row);
  }
  const ciMinutes = (of: QueueOutcome) => of.runs.reduce((sum, run) => sum + (run.endedAt - run.startedAt), 0) / 60_000;
  const oracleMerged = oracle.prs.filter((pr) => pr.state === 'MERGED').length;
  const perMerge = ciMinutes(outcome) / Math.max(1, merged);
  const oraclePerMerge = ciMinutes(oracle) / Math.max(1, oracleMerged);
  lines.push(
    `runs: ${outcome.runs.length} for ${merged} merged (${(outcome.runs.length / Math.max(1, merged)).toFixed(2)} per merge); CI time ${perMerge.toFixed(0)} min per merge = ${(perMerge / oraclePerMerge).toFixed(2)}× the oracle's ${oraclePerMerge.toFixed(0)}`,
  );
  for (const [kind, row] of kinds) {
    const total = row.passed + row.failed + row.cancelled + row.vouched + row.other;
    lines.push(
      `  ${kind.padEnd(17)} ${String(total).padStart(6)} = ${(total / Math.max(1, merged)).toFixed(2)}/merge: passed ${row.passed}, failed ${row.failed}, cancelled ${row.cancelled} (reset) and ${row.vouched} (its PRs merged on a later run), in progress or timed out ${row.other}`,
    );
  }
  const heat = targetHeat(arrivals);
  const heatOf = (arrival: Arrival) =>
    Array.isArray(arrival.targets) ? Math.max(0, ...arrival.targets.map((target) => heat.get(target) ?? 0)) : Infinity;
  const byNumber = new Map(outcome.prs.map((pr) => [pr.number, pr]));
  const oracleByNumber = new Map(oracle.prs.map((pr) => [pr.number, pr]));
  const mainRuns = new Map<number, number>();
  for (const run of outcome.runs)
    if (run.kind === 'main') for (const number of run.prs) mainRuns.set(number, (mainRuns.get(number) ?? 0) + 1);
  lines.push(
    `${'heat'.padEnd(16)} ${'PRs'.padStart(5)} ${'merged'.padStart(7)} ${'left'.padStart(5)} ${'p50'.padStart(5)} ${'oracle'.padStart(7)} ${'main runs/PR'.padStart(12)}`,
  );
  for (const bucket of BUCKETS) {
    const members = arrivals.filter((arrival) => bucket.holds(heatOf(arrival)));
    if (members.length === 0) continue;
    const ttm = (of: Map<number, { state: string; leftAt: number | null; arrivedAt: number }>) =>
      members.flatMap((arrival) => {
        const pr = of.get(arrival.number);
        return pr?.state === 'MERGED' && pr.leftAt !== null ? [pr.leftAt - pr.arrivedAt] : [];
      });
    const done = members.filter((arrival) => byNumber.get(arrival.number)?.state === 'MERGED').length;
    const left = members.filter((arrival) => byNumber.get(arrival.number)?.leftAt === null).length;
    const runs = members.reduce((sum, arrival) => sum + (mainRuns.get(arrival.number) ?? 0), 0) / members.length;
    lines.push(
      `${bucket.name.padEnd(16)} ${String(members.length).padStart(5)} ${String(done).padStart(7)} ${String(left).padStart(5)} ${minutes(percentile(ttm(byNumber), 0.5)).padStart(5)} ${minutes(percentile(ttm(oracleByNumber), 0.5)).padStart(7)} ${runs.toFixed(2).padStart(12)}`,
    );
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { drawArrivals } = await import('../sim/arrivals.js');
  const { runOracle } = await import('../sim/oracle.js');
  const { runQueue } = await import('../sim/queueRun.js');
  const { parseScenario } = await import('../sim/scenario.js');
  const { MONOREPO, MONOREPO_CONFIGS } = await import('./monorepoWorkload.js');
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const seed = Number(option('--seed') ?? 1);
  const hours = Number(option('--hours') ?? 3);
  const config = MONOREPO_CONFIGS.find((entry) => entry.name === (option('--config') ?? 'graph-c200'));
  if (config === undefined) throw new Error(`no configuration ${option('--config')}`);
  const scenario = parseScenario({ ...MONOREPO, hours, seed, configs: [{ name: config.name, ...config.settings }] });
  const arrivals = drawArrivals(scenario, seed);
  const policy = option('--policy') === undefined ? undefined : Number(option('--policy'));
  const outcome = await runQueue({ scenario, seed, settings: config.settings, arrivals, policy });
  const oracle = runOracle(scenario, seed, arrivals, 300);
  console.log(
    `${config.name}, seed ${seed}, ${hours} h of arrivals, queue policy ${policy ?? 'current'}${outcome.saturated ? ' (saturated)' : ''}`,
  );
  for (const line of profileOf(outcome, oracle, arrivals)) console.log(line);
}
