/**
 * Where the merge estimates go wrong (a profile for bench/estimates.ts): for each PR that merges, at readiness and at
 * the head, what the queue was doing (its run under way and for how long, the PRs ahead, the runs of the queue), the
 * estimate, and two oracles measured in the same run: the true remaining CI time of its run (the scenario's CI knows
 * each run's duration), to split the error into what the durations cost and what the queue model costs.
 *
 * `npx tsx bench/estimatesProfile.ts [workload] [seed] [--hours H]`
 */
import { pathToFileURL } from 'node:url';
import { runDurationMs } from '../sim/ci.js';
import { SIM_START } from '../sim/queueRun.js';
import { exampleQueue } from './estimates.js';
import { normalCdf } from '../engine/estimate/durations.js';
import { normalQuantile } from '../engine/estimate/durations.js';

interface Point {
  at: number;
  median: number;
  p90: number;
  index: number;
  /** The PR's run under way: how long it has run and how long it lasts in all (the scenario's CI). */
  elapsed?: number;
  trueDuration?: number;
  runSize?: number;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)]!;
};

export async function profile(configName: string, seed: number, hours: number): Promise<void> {
  const { ci, run } = exampleQueue(configName, seed, hours);
  const head = new Map<number, Point>();
  const ready = new Map<number, Point>();
  const outcome = await run((engine, key) => {
    const { queue, enqueued } = engine.getQueue(key);
    const lineup = queue.runtime.lineup;
    if (!lineup.some((number, index) => !ready.has(number) || (index === 0 && !head.has(number)))) return;
    const now = engine.scheduler.now();
    const estimates = engine.estimates(key);
    for (const [index, number] of lineup.entries()) {
      const estimate = estimates.get(number);
      if (estimate === undefined) continue;
      const pr = enqueued.find((candidate) => candidate.number === number);
      const run = pr?.runId == null ? undefined : engine.testRun(queue.id, pr.runId);
      const point: Point = { at: now, median: estimate.at, p90: estimate.p90, index };
      if (run !== undefined && run.status === 'in_progress') {
        point.elapsed = now - Date.parse(run.createdAt);
        point.trueDuration = runDurationMs(ci, run.prs);
        point.runSize = run.prs.length;
      }
      if (!ready.has(number)) ready.set(number, point);
      if (index === 0 && !head.has(number)) head.set(number, point);
    }
  });
  const merged = outcome.prs.filter((pr) => pr.state === 'MERGED' && pr.leftAt !== null);
  for (const [name, samples] of [
    ['ready', ready],
    ['head', head],
  ] as const) {
    const rows = merged.flatMap((pr) => {
      const point = samples.get(pr.number);
      if (point === undefined) return [];
      const actual = SIM_START + pr.leftAt! - point.at;
      if (actual <= 0) return [];
      return [{ point, actual, err: (point.median - point.at - actual) / actual }];
    });
    const running = rows.filter((row) => row.point.trueDuration !== undefined);
    const idle = rows.filter((row) => row.point.trueDuration === undefined);
    const oracle = running.map((row) => (row.point.trueDuration! - row.point.elapsed! - row.actual) / row.actual);
    // The bound the durations set: the scenario's own log-normal known exactly, the run's remaining time taken as its
    // median given what it has run, and everything after the run known exactly.
    const sigma = Math.log(ci.p90Minutes / ci.medianMinutes) / 1.2815515655446004;
    const mu = Math.log(ci.medianMinutes * 60_000);
    const bound = running.map((row) => {
      const from = normalCdf((Math.log(Math.max(1, row.point.elapsed!)) - mu) / sigma);
      const remaining = Math.exp(mu + sigma * normalQuantile(from + (1 - from) / 2)) - row.point.elapsed!;
      const after = row.actual - (row.point.trueDuration! - row.point.elapsed!);
      return Math.abs(remaining + after - row.actual) / row.actual;
    });
    console.log(
      `${configName} seed ${seed} ${name}: n=${rows.length} signed median err ${(median(rows.map((r) => r.err)) * 100).toFixed(1)} % |err| ${(median(rows.map((r) => Math.abs(r.err))) * 100).toFixed(1)} %; ` +
        `run under way n=${running.length} |err| ${(median(running.map((r) => Math.abs(r.err))) * 100).toFixed(1)} % signed ${(median(running.map((r) => r.err)) * 100).toFixed(1)} % ` +
        `(true remaining CI: |err| ${(median(oracle.map(Math.abs)) * 100).toFixed(1)} % signed ${(median(oracle) * 100).toFixed(1)} %; ` +
        `bound of the durations: |err| ${(median(bound) * 100).toFixed(1)} %); ` +
        `no run n=${idle.length} |err| ${(median(idle.map((r) => Math.abs(r.err))) * 100).toFixed(1)} % signed ${(median(idle.map((r) => r.err)) * 100).toFixed(1)} %; ` +
        `median actual ${(median(rows.map((r) => r.actual)) / 60_000).toFixed(1)} min, run sizes ${median(running.map((r) => r.point.runSize!))}`,
    );
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--hours');
  const hours = at === -1 ? 12 : Number(args[at + 1]);
  const rest = at === -1 ? args : args.filter((_, index) => index !== at && index !== at + 1);
  await profile(rest[0] ?? 'predictive4', Number(rest[1] ?? 1), hours);
}
