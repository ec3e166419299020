/**
 * How good the merge estimates are (engine/estimate), judged by the simulator: for each PR, the estimate when it
 * becomes ready and when it reaches the head of the queue, against when it actually merged. Over the bundled example
 * (sim/examples/monorepo.json, predictive4) and two other workloads on it (batch8: batching; lanes4: parallel mode),
 * seeds 1–3, and one the issue does not name (predictive12, seeds 4–5): for PRs that merge, the median of
 * |estimate − actual| / actual (durations from the moment of the estimate) at readiness and at the head, and the
 * share of actual times under the P90 estimate. Each figure for this checkout's estimate ("after") beside the same
 * figure for another revision's ("before", default main: bench/estimatesBefore.ts), both measured in the same run on
 * the same simulation, with their ratio; and the bound the CI durations set at the head: the error left when the
 * scenario's own duration distribution is known exactly and everything after the run under way is too (a run's
 * remaining time is then its median given what it has run), which no estimate from a queue's history can beat.
 * Goals: median error ≤ 25 % at readiness, ≤ 10 % at the head; 85–95 % under the P90.
 *
 * `npx tsx bench/estimates.ts [--hours H] [--before REV] [--oracle FORKS [--every K]] [--only 'batch8:1,2 lanes4:3']`
 * (default 12 hours of arrivals per run; the example has 72). With `--oracle`, the bound of estimatesOracle.ts too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import type { MergeEstimate } from '../engine/estimate/index.js';
import { normalCdf } from '../engine/estimate/durations.js';
import { normalQuantile } from '../engine/estimate/durations.js';
import { drawArrivals } from '../sim/arrivals.js';
import { runDurationMs } from '../sim/ci.js';
import { createMemoryStore } from '../engine/store/index.js';
import type { Store } from '../engine/store/store.js';
import { runQueue, SIM_START, type QueueRunOptions } from '../sim/queueRun.js';
import { parseScenarioText, settingsOf } from '../sim/scenario.js';
import { estimatorAt } from './estimatesBefore.js';
import {
  interval,
  OracleCollector,
  type OracleCost,
  type OracleOptions,
  type SampledErrors,
} from './estimatesOracle.js';

interface Sample {
  at: number;
  after: MergeEstimate;
  before?: MergeEstimate;
  /** The forked simulation's (estimatesOracle.ts), for sampled PRs when asked. */
  oracle?: MergeEstimate;
  /** The bound's remaining time of the PR's run under way (ms), and the run's true remaining time. */
  bound?: { remaining: number; trueRemaining: number };
}

export interface Figures {
  prs: number;
  after: Accuracy;
  before: Accuracy;
  /** Median error at the head with the durations' bound (NaN without a run under way at the head). */
  headBound: number;
  /** With the oracle: the PRs it sampled, and each estimator's figures over those same PRs. */
  sampled?: {
    prs: number;
    after: Accuracy;
    before: Accuracy;
    oracle: Accuracy;
    cost: OracleCost;
    errors: SampledErrors;
  };
}

interface Accuracy {
  readyError: number;
  headError: number;
  readyUnderP90: number;
  headUnderP90: number;
}

const median = (values: number[]) => {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const Z90 = 1.2815515655446004;

/** A configuration of the bundled example (sim/examples/monorepo.json) shortened to `hours`: its CI, and a run of it. */
export function exampleQueue(configName: string, seed: number, hours: number) {
  const scenario = parseScenarioText(
    readFileSync(new URL('../sim/examples/monorepo.json', import.meta.url), 'utf8'),
    'monorepo.json',
  );
  const config = scenario.configs.find((candidate) => candidate.name === configName);
  if (config === undefined) throw new Error(`no configuration ${configName} in the example`);
  const shortened = { ...scenario, hours };
  const arrivals = drawArrivals(shortened, seed);
  return {
    ci: { seed, medianMinutes: scenario.ci.medianMinutes, p90Minutes: scenario.ci.p90Minutes },
    source: { scenario: shortened, seed, arrivals, parallel: config.mode === 'parallel' },
    run: (onStep: QueueRunOptions['onStep'], store?: Store) =>
      runQueue({
        scenario: shortened,
        seed,
        settings: settingsOf(config),
        arrivals,
        onStep,
        sampleEstimates: true,
        ...(store === undefined ? {} : { store }),
      }),
  };
}

export async function measureEstimates(
  configName: string,
  seed: number,
  hours: number,
  before: Awaited<ReturnType<typeof estimatorAt>>,
  oracleOptions?: OracleOptions,
): Promise<Figures> {
  const { ci, source, run: runExample } = exampleQueue(configName, seed, hours);
  const store = createMemoryStore();
  const oracle = oracleOptions === undefined ? undefined : new OracleCollector(oracleOptions, store);
  const mu = Math.log(ci.medianMinutes * 60_000);
  const sigma = Math.log(ci.p90Minutes / ci.medianMinutes) / Z90;
  const ready = new Map<number, Sample>();
  const head = new Map<number, Sample>();
  const outcome = await runExample((engine, key) => {
    const { queue, enqueued } = engine.getQueue(key);
    const lineup = queue.runtime.lineup;
    if (!lineup.some((number, index) => !ready.has(number) || (index === 0 && !head.has(number)))) return;
    const now = engine.scheduler.now();
    const after = engine.estimates(key);
    const earlier = before(engine, key);
    const sampled: number[] = [];
    for (const [index, number] of lineup.entries()) {
      const estimate = after.get(number);
      if (estimate === undefined) continue;
      const old = earlier.get(number);
      const sample: Sample = { at: now, after: estimate, ...(old === undefined ? {} : { before: old }) };
      if (index === 0 && !head.has(number)) {
        const runId = enqueued.find((pr) => pr.number === number)?.runId;
        const run = runId == null ? undefined : engine.testRun(queue.id, runId);
        if (run?.status === 'in_progress') {
          const elapsed = now - Date.parse(run.createdAt);
          const from = normalCdf((Math.log(Math.max(1, elapsed)) - mu) / sigma);
          const remaining = Math.exp(mu + sigma * normalQuantile(from + (1 - from) / 2)) - elapsed;
          sample.bound = { remaining, trueRemaining: runDurationMs(ci, run.prs) - elapsed };
        }
        head.set(number, sample);
        sampled.push(number);
      }
      if (!ready.has(number)) {
        ready.set(number, sample);
        if (index !== 0) sampled.push(number);
      }
    }
    oracle?.observe(now, sampled);
  }, store);
  const merged = outcome.prs.filter((pr) => pr.state === 'MERGED' && pr.leftAt !== null);
  const judged = (samples: Map<number, Sample>) =>
    merged.flatMap((pr) => {
      const sample = samples.get(pr.number);
      const actual = sample === undefined ? 0 : SIM_START + pr.leftAt! - sample.at;
      return sample === undefined || actual <= 0 ? [] : [{ sample, actual, mergedAt: SIM_START + pr.leftAt! }];
    });
  const errorsOf = (
    samples: Map<number, Sample>,
    of: (sample: Sample) => MergeEstimate | undefined,
    only: (sample: Sample) => boolean,
  ) =>
    judged(samples)
      .filter(({ sample }) => only(sample))
      .flatMap(({ sample, actual }) =>
        of(sample) === undefined ? [] : [Math.abs(of(sample)!.at - sample.at - actual) / actual],
      );
  const accuracy = (of: (sample: Sample) => MergeEstimate | undefined, only = (_sample: Sample) => true): Accuracy => {
    const error = (samples: Map<number, Sample>) => median(errorsOf(samples, of, only));
    const under = (samples: Map<number, Sample>) => {
      const rows = judged(samples).filter(({ sample }) => of(sample) !== undefined && only(sample));
      return rows.filter(({ sample, mergedAt }) => mergedAt <= of(sample)!.p90).length / Math.max(1, rows.length);
    };
    return { readyError: error(ready), headError: error(head), readyUnderP90: under(ready), headUnderP90: under(head) };
  };
  const bounds = judged(head).flatMap(({ sample, actual }) =>
    sample.bound === undefined
      ? []
      : [Math.abs(sample.bound.remaining + (actual - sample.bound.trueRemaining) - actual) / actual],
  );
  const figures: Figures = {
    prs: merged.length,
    after: accuracy((sample) => sample.after),
    before: accuracy((sample) => sample.before),
    headBound: median(bounds),
  };
  if (oracle !== undefined) {
    const { estimates, cost } = await oracle.resolve(source);
    const number = new Map<Sample, number>([...ready, ...head].map(([key, sample]) => [sample, key]));
    for (const sample of [...ready.values(), ...head.values()]) {
      const estimate = estimates.get(`${sample.at}:${number.get(sample)}`);
      if (estimate !== undefined) sample.oracle = estimate;
    }
    const only = (sample: Sample) => sample.oracle !== undefined;
    figures.sampled = {
      prs: merged.filter((pr) => ready.get(pr.number)?.oracle !== undefined).length,
      after: accuracy((sample) => sample.after, only),
      before: accuracy((sample) => sample.before, only),
      oracle: accuracy((sample) => sample.oracle, only),
      cost,
      errors: Object.fromEntries(
        (['before', 'after', 'oracle'] as const).map((name) => [
          name,
          {
            ready: errorsOf(ready, (sample) => sample[name], only),
            head: errorsOf(head, (sample) => sample[name], only),
          },
        ]),
      ) as SampledErrors,
    };
  }
  return figures;
}

const percent = (value: number) => (Number.isNaN(value) ? 'n/a' : `${(value * 100).toFixed(1)} %`);
const pair = (before: number, after: number) =>
  `${percent(before)} → ${percent(after)}${before > 0 && !Number.isNaN(after) ? ` (${(after / before).toFixed(2)}×)` : ''}`;

const triple = (f: NonNullable<Figures['sampled']>, of: (accuracy: Accuracy) => number) =>
  `${percent(of(f.before))} / ${percent(of(f.after))} / ${percent(of(f.oracle))}`;

/** One row of figures; with the oracle, a second row over the PRs it sampled: before / after / oracle. */
export function printFigures(workload: string, seed: number, f: Figures): void {
  console.log(
    `${workload.padEnd(13)} ${String(seed).padEnd(4)} ${String(f.prs).padEnd(7)} ` +
      `${pair(f.before.readyError, f.after.readyError).padEnd(30)} ${pair(f.before.headError, f.after.headError).padEnd(30)} ${percent(f.headBound).padEnd(11)} ` +
      `${pair(f.before.readyUnderP90, f.after.readyUnderP90).padEnd(27)} ${pair(f.before.headUnderP90, f.after.headUnderP90)}`,
  );
  const s = f.sampled;
  if (s === undefined) return;
  console.log(
    `  sampled ${s.prs} PRs, before / after / oracle: err@ready ${triple(s, (a) => a.readyError)}; err@head ${triple(s, (a) => a.headError)}; ` +
      `<=P90 ready ${triple(s, (a) => a.readyUnderP90)}; <=P90 head ${triple(s, (a) => a.headUnderP90)}; ` +
      `oracle err@ready 90 % interval ${interval(s.errors.oracle.ready).map(percent).join('–')}, ${s.errors.oracle.head.length} PRs at the head; ` +
      `${s.cost.forks} forks at ${s.cost.moments} moments, ${(s.cost.ms / Math.max(1, s.cost.forks)).toFixed(0)} ms per fork`,
  );
}

async function main(): Promise<void> {
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const hours = Number(option('--hours') ?? 12);
  const revision = option('--before') ?? 'main';
  const before = await estimatorAt(revision);
  // The bound (estimatesOracle.ts) costs forks × moments simulations: off unless asked.
  const oracle =
    option('--oracle') === undefined
      ? undefined
      : { forks: Number(option('--oracle')), every: Number(option('--every') ?? 3) };
  console.log(
    `Merge estimates against the simulator (sim/examples/monorepo.json, ${hours} h of arrivals): before (${revision}) → after (this checkout), same run`,
  );
  console.log('goals: error ≤ 25 % at readiness, ≤ 10 % at the head; 85–95 % of actual times under the P90');
  console.log(
    'workload      seed merged  err@ready before → after       err@head before → after        head bound  <=P90 ready before → after  <=P90 head before → after',
  );
  const workloads: [string, number[]][] = [
    ['predictive4', [1, 2, 3]],
    ['batch8', [1, 2, 3]],
    ['lanes4', [1, 2, 3]],
    // Not named by the issue: another setting of the example, other seeds.
    ['predictive12', [4, 5]],
  ];
  const only = option('--only');
  if (only !== undefined) {
    workloads.splice(
      0,
      workloads.length,
      ...only
        .split(' ')
        .map((run): [string, number[]] => [run.split(':')[0]!, run.split(':')[1]!.split(',').map(Number)]),
    );
  }
  for (const [workload, seeds] of workloads) {
    for (const seed of seeds) {
      const figures = await measureEstimates(workload, seed, hours, before, oracle);
      printFigures(workload, seed, figures);
      // The oracle's rows, PR by PR, to pool seeds: `--dump DIR`.
      const dump = option('--dump');
      if (dump !== undefined && figures.sampled !== undefined)
        writeFileSync(`${dump}/${workload}-${seed}.json`, JSON.stringify(figures.sampled));
    }
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) await main();
