/**
 * Speculation by likelihood (issue 22) on the issue's workload: 60 PRs/h, 30-minute CI, 5% broken PRs with
 * predictive features (authors, sizes), 2% flaky runs, one coupled queue (single mode). Every setting of a grid
 * without it (concurrency, batching, anti-flake), then the same with it; each row's throughput while PRs arrive
 * (merges before the arrivals end, per hour: the capacity of a queue that cannot keep up), P50 and CI runs per merge,
 * and the best with speculation against the best without, as ratios. The same speculation is then run with two
 * predictors in place of the engine's model, for bounds: the best estimate any model could make from the simulated
 * features (Bayes' rule on how they are drawn), and an oracle that knows which PRs are broken. The baseline is the
 * best setting without speculation searched in the same run. `npm run bench:speculation [-- --seed N | --seeds 1,2,3]`.
 */
import { pathToFileURL } from 'node:url';
import { drawArrivals } from '../sim/arrivals.js';
import { runQueue, type QueueOutcome } from '../sim/queueRun.js';
import { mergeTimes, percentilesOf } from '../sim/report.js';
import { parseScenario } from '../sim/scenario.js';
import type { QueuePatch } from '../engine/model/queues.js';
import type { Arrival } from '../sim/arrivals.js';
import { bayesLikelihood } from '../sim/features.js';

const HOURS = 8;
const HOUR_MS = 3_600_000;

interface Row {
  name: string;
  perHour: number;
  p50: number;
  runsPerMerge: number;
  isolated: number;
  /** Of the PRs isolated, the broken share; of the broken PRs, the isolated share. */
  precision: number;
  recall: number;
  /** Mean likelihood at ready of broken and of good PRs. */
  meanBroken: number;
  meanGood: number;
}

function rowOf(name: string, outcome: QueueOutcome): Row {
  const merged = outcome.prs.filter((pr) => pr.state === 'MERGED');
  const early = merged.filter((pr) => pr.leftAt !== null && pr.leftAt <= HOURS * HOUR_MS).length;
  const isolated = new Set(outcome.runs.filter((run) => run.speculative === true).flatMap((run) => run.prs));
  const broken = outcome.prs.filter((pr) => pr.broken);
  const mean = (prs: typeof broken) => prs.reduce((sum, pr) => sum + (pr.likelihood ?? 0), 0) / Math.max(1, prs.length);
  return {
    name,
    precision: broken.filter((pr) => isolated.has(pr.number)).length / Math.max(1, isolated.size),
    recall: broken.filter((pr) => isolated.has(pr.number)).length / Math.max(1, broken.length),
    meanBroken: mean(broken),
    meanGood: mean(outcome.prs.filter((pr) => !pr.broken)),
    perHour: early / HOURS,
    p50: percentilesOf(mergeTimes(outcome)).p50 ?? Infinity,
    runsPerMerge: outcome.runs.length / Math.max(1, merged.length),
    isolated: outcome.runs.filter((run) => run.speculative === true).length,
  };
}

export function grid(): { name: string; settings: QueuePatch }[] {
  const configs: { name: string; settings: QueuePatch }[] = [];
  for (const concurrency of [10, 20, 40, 80]) {
    for (const size of [1, 2, 4]) {
      for (const antiFlake of [false, true]) {
        const settings: QueuePatch = {
          concurrency,
          ...(size > 1 ? { batch: true, batchingMinSize: size, batchingMaxWaitTimeMinutes: 5 } : {}),
          ...(antiFlake ? { pendingFailureDepth: 1, canOptimisticallyMerge: true } : {}),
        };
        configs.push({ name: `c${concurrency}${size > 1 ? `-batch${size}` : ''}${antiFlake ? '-af' : ''}`, settings });
      }
    }
  }
  return configs;
}

type Predictor = 'model' | 'bayes' | 'oracle';

export interface SpeculationFigures {
  seed: number;
  base: Row;
  /** Per predictor: the best with speculation at no more than 1.5× the base's runs per merge, and at any cost. */
  atCost: Partial<Record<Predictor, Row>>;
  anyCost: Partial<Record<Predictor, Row>>;
}

export async function benchSpeculation(seed = 1): Promise<SpeculationFigures> {
  const scenario = parseScenario({
    name: 'speculation',
    seed,
    hours: HOURS,
    drainHours: 12,
    arrivalsPerHour: 60,
    ci: { medianMinutes: 30, p90Minutes: 30 },
    brokenRate: 0.05,
    flakeRate: 0.02,
    predictiveFeatures: {},
    saturationDepth: 2000,
    configs: [{ name: 'x' }],
  });
  const arrivals = drawArrivals(scenario, seed);
  console.log(
    `\nSpeculation by likelihood (seed ${seed}): ${arrivals.length} PRs over ${HOURS} h, 30-min CI, 5% broken with features, 2% flaky, single mode`,
  );
  console.log(
    `${'configuration'.padEnd(30)} ${'merged/h'.padStart(9)} ${'p50'.padStart(6)} ${'runs/merge'.padStart(10)} ${'isolated'.padStart(8)}`,
  );
  const features = scenario.predictiveFeatures as NonNullable<typeof scenario.predictiveFeatures>;
  const predictors: Record<Predictor, ((arrival: Arrival) => number) | undefined> = {
    model: undefined,
    bayes: (arrival) => bayesLikelihood(features, scenario.brokenRate, arrival),
    oracle: (arrival) => (arrival.broken ? 0.99 : 0.001),
  };
  const run = async (name: string, settings: QueuePatch, predictor?: (arrival: Arrival) => number) => {
    const row = rowOf(
      name,
      await runQueue({ scenario, seed, settings, arrivals, ...(predictor === undefined ? {} : { predictor }) }),
    );
    console.log(
      `${name.padEnd(30)} ${row.perHour.toFixed(1).padStart(9)} ${row.p50.toFixed(0).padStart(6)} ${row.runsPerMerge.toFixed(2).padStart(10)} ${String(row.isolated).padStart(8)}`,
    );
    return row;
  };
  const without: Row[] = [];
  for (const config of grid()) without.push(await run(config.name, config.settings));
  const best = (rows: Row[]) =>
    rows.reduce((a, b) =>
      b.perHour > a.perHour || (b.perHour === a.perHour && b.runsPerMerge < a.runsPerMerge) ? b : a,
    );
  const base = best(without);
  console.log(
    `\n  best without: ${base.name}: ${base.perHour.toFixed(1)} merged/h, ${base.runsPerMerge.toFixed(2)} runs/merge, P50 ${base.p50.toFixed(0)} min`,
  );
  const figures: SpeculationFigures = { seed, base, atCost: {}, anyCost: {} };
  for (const predictor of ['model', 'bayes', 'oracle'] as const) {
    const withIt: Row[] = [];
    console.log(
      `\nwith speculation, likelihood from ${predictor === 'model' ? "the engine's model" : predictor === 'bayes' ? 'Bayes on the simulated features (the best a model could learn)' : 'an oracle (knows the broken PRs)'}`,
    );
    // Left out of the speculation rows, to keep the bench short: single PRs (about half the merges per hour of
    // batches here) and concurrency 80 (3.4 to 6.7 runs per merge without speculation, far past the cost cap).
    for (const config of grid().filter(
      (config) => config.settings.batch === true && config.settings.concurrency !== 80,
    )) {
      for (const percent of predictor === 'oracle' ? [10] : [10, 25]) {
        const settings: QueuePatch = {
          ...config.settings,
          optimizationMode: 'speculate_by_likelihood',
          speculationRunsPercent: percent,
        };
        withIt.push(
          await run(
            `${config.name}-spec${percent}${predictor === 'model' ? '' : `-${predictor}`}`,
            settings,
            predictors[predictor],
          ),
        );
      }
    }
    const spec = best(withIt);
    const withinCost = withIt.filter((row) => row.runsPerMerge <= 1.5 * base.runsPerMerge);
    const specAtCost = withinCost.length > 0 ? best(withinCost) : undefined;
    figures.anyCost[predictor] = spec;
    if (specAtCost !== undefined) figures.atCost[predictor] = specAtCost;
    console.log(
      `\n  ${predictor}: likelihood at ready: broken PRs ${spec.meanBroken.toFixed(3)} on average, good ${spec.meanGood.toFixed(3)}; ${spec.name} isolated ${(spec.recall * 100).toFixed(0)}% of the broken PRs, and ${(spec.precision * 100).toFixed(0)}% of the PRs it isolated were broken`,
    );
    console.log(
      `  ${predictor}: best with: ${spec.name}: ${spec.perHour.toFixed(1)} merged/h = ${(spec.perHour / base.perHour).toFixed(2)}×, ${spec.runsPerMerge.toFixed(2)} runs/merge = ${(spec.runsPerMerge / base.runsPerMerge).toFixed(2)}×, P50 ${spec.p50.toFixed(0)} min`,
    );
    if (specAtCost !== undefined) {
      console.log(
        `  ${predictor}: best with at ≤ 1.5× its runs/merge: ${specAtCost.name}: ${specAtCost.perHour.toFixed(1)} merged/h = ${(specAtCost.perHour / base.perHour).toFixed(2)}×, ${(specAtCost.runsPerMerge / base.runsPerMerge).toFixed(2)}× runs/merge, P50 ${specAtCost.p50.toFixed(0)} min (precision ${(specAtCost.precision * 100).toFixed(0)}%, recall ${(specAtCost.recall * 100).toFixed(0)}%)`,
      );
    }
    console.log(
      `  ${predictor}: goal ≥ 1.5× merged/h at ≤ 1.5× runs/merge: ${specAtCost !== undefined && specAtCost.perHour >= 1.5 * base.perHour ? 'met' : 'NOT MET'}`,
    );
  }
  return figures;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const at = process.argv.indexOf('--seed');
  const list = process.argv.indexOf('--seeds');
  const seeds =
    list !== -1
      ? (process.argv[list + 1] ?? '1').split(',').map(Number)
      : [at === -1 ? 1 : Number(process.argv[at + 1])];
  const lines: string[] = [];
  for (const seed of seeds) {
    const { base, atCost } = await benchSpeculation(seed);
    const cell = (row: Row | undefined) =>
      row === undefined
        ? 'none within the cap'
        : `${(row.perHour / base.perHour).toFixed(2)}× (${row.perHour.toFixed(1)}/h at ${(row.runsPerMerge / base.runsPerMerge).toFixed(2)}× runs, ${row.name})`;
    lines.push(
      `seed ${seed}: without ${base.perHour.toFixed(1)}/h at ${base.runsPerMerge.toFixed(2)} runs/merge (${base.name}); at ≤ 1.5× runs: model ${cell(atCost.model)}; bayes ${cell(atCost.bayes)}; oracle ${cell(atCost.oracle)}`,
    );
  }
  console.log(
    `\nSpeculation within 1.5× the runs per merge of the best setting without it, merged/h against it:\n${lines.join('\n')}`,
  );
}
