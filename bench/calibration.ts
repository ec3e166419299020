/**
 * Calibration round trip (issue 35): three known workloads (one in parallel mode) are simulated under a queue's
 * settings, their event logs exported and read back (the file format of `greenline events` and `sim --out`), and the
 * workload fitted to each log (`greenline sim --from-log`). Every fitted rate must be within 10 % of the truth or its
 * 95 % interval must hold the truth; and the recommender's pick on the fitted scenario, run on the true workload,
 * must reach a P50 within 5 % of the pick made on the true scenario.
 * `npm run bench:calibration [-- --seed N] [-- --only NAME]`.
 */
import { pathToFileURL } from 'node:url';
import { formatEventLog, parseEventLog } from '../engine/runtime/eventLog.js';
import { drawArrivals } from '../sim/arrivals.js';
import { type Fit, fitHistory } from '../sim/fit.js';
import { historyOfLog } from '../sim/history.js';
import { queueRunOf } from './calibrationRun.js';
import { describeSetup, recommend, settingsOfSetup } from '../sim/recommend.js';
import { parseScenario, type Scenario, type ScenarioInput } from '../sim/scenario.js';
import { simulate } from '../sim/simulate.js';

export const CALIBRATION_WORKLOADS: ScenarioInput[] = [
  {
    name: 'steady',
    hours: 48,
    arrivalsPerHour: 8,
    ci: { medianMinutes: 20, p90Minutes: 40 },
    brokenRate: 0.06,
    flakeRate: 0.03,
    configs: [{ name: 'current', concurrency: 6 }],
  },
  {
    name: 'cycle-batches',
    hours: 72,
    arrivalsPerHour: 10,
    dailyCycle: { amplitude: 0.6, peakHour: 15 },
    priorityMix: { high: 1, medium: 4 },
    ci: { medianMinutes: 25, p90Minutes: 45 },
    brokenRate: 0.08,
    flakeRate: 0.02,
    configs: [{ name: 'current', batch: true, batchingMinSize: 4, batchingMaxWaitTimeMinutes: 20, concurrency: 2 }],
  },
  {
    name: 'parallel',
    hours: 24,
    arrivalsPerHour: 12,
    ci: { medianMinutes: 20, p90Minutes: 35 },
    brokenRate: 0.05,
    flakeRate: 0.03,
    targets: { count: 300, perPr: 3, allShare: 0.02, skew: 1 },
    configs: [{ name: 'current', mode: 'parallel', concurrency: 12 }],
  },
];

/** The truth of each fitted figure that is a rate of the scenario (null: not one of its parameters). */
function truthOf(scenario: Scenario, figure: string): number | null {
  const mix = scenario.priorityMix;
  const total = mix === undefined ? 0 : Object.values(mix).reduce((sum: number, weight) => sum + (weight ?? 0), 0);
  const priority = /^priority (\w+)$/.exec(figure)?.[1];
  if (priority !== undefined)
    return mix === undefined ? null : ((mix as Record<string, number | undefined>)[priority] ?? 0) / total;
  switch (figure) {
    case 'arrivals per hour':
      return scenario.arrivalsPerHour;
    case 'daily cycle amplitude':
      return scenario.dailyCycle?.amplitude ?? 0;
    case 'CI median':
      return scenario.ci.medianMinutes;
    case 'CI p90':
      return scenario.ci.p90Minutes;
    case 'broken rate':
      return scenario.brokenRate;
    case 'flake rate':
      return scenario.flakeRate;
    case 'targets per PR':
      return scenario.targets?.perPr ?? null;
    case 'ALL share':
      return scenario.targets?.allShare ?? null;
    case 'targets skew':
      return scenario.targets?.skew ?? null;
    default:
      return null;
  }
}

export interface CalibrationRow {
  workload: string;
  figures: { name: string; truth: number; value: number; low: number; high: number; ok: boolean }[];
  truePick: string;
  fittedPick: string;
  /** P50 on the true workload of the pick made on the true scenario, and of the pick made on the fitted one. */
  truePickP50: number;
  fittedPickP50: number;
  pickOk: boolean;
}

export async function calibrate(input: ScenarioInput, seed: number): Promise<{ row: CalibrationRow; fit: Fit }> {
  const truth = parseScenario({ ...input, seed });
  const log = await queueRunOf(truth, seed);
  const history = historyOfLog(parseEventLog(formatEventLog(log)));
  const fit = fitHistory(history, `${truth.name} (fitted)`);
  const figures = fit.figures.flatMap((figure) => {
    const value = truthOf(truth, figure.name);
    if (value === null) return [];
    const within = value === 0 ? Math.abs(figure.value) <= 0.01 : Math.abs(figure.value - value) <= 0.1 * value;
    return [
      {
        name: figure.name,
        truth: value,
        value: figure.value,
        low: figure.low,
        high: figure.high,
        ok: within || (figure.low <= value && value <= figure.high),
      },
    ];
  });
  const trueRec = await recommend(truth, drawArrivals(truth, seed), seed);
  const fitted = { ...fit.scenario, seed };
  const fittedRec = await recommend(fitted, drawArrivals(fitted, seed), seed);
  // Both picks on the true workload, on the same arrivals.
  const both = await simulate({
    ...truth,
    configs: [
      { name: 'true-pick', ...settingsOfSetup(trueRec.best.setup) },
      { name: 'fitted-pick', ...settingsOfSetup(fittedRec.best.setup) },
    ] as Scenario['configs'],
  });
  const [onTrue, onFitted] = both.report.configs.map((row) => row.timeToMerge.p50 ?? Infinity) as [number, number];
  return {
    fit,
    row: {
      workload: truth.name,
      figures,
      truePick: describeSetup(trueRec.best.setup),
      fittedPick: describeSetup(fittedRec.best.setup),
      truePickP50: onTrue,
      fittedPickP50: onFitted,
      pickOk: onFitted <= onTrue * 1.05,
    },
  };
}

const show = (value: number) => (Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(4));

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const option = (name: string) => {
    const at = process.argv.indexOf(name);
    return at === -1 ? undefined : process.argv[at + 1];
  };
  const seed = Number(option('--seed') ?? '1');
  const only = option('--only');
  let allOk = true;
  for (const workload of CALIBRATION_WORKLOADS.filter((workload) => only === undefined || workload.name === only)) {
    const started = performance.now();
    const { row } = await calibrate(workload, seed);
    console.log(`\n${row.workload} (seed ${seed}, ${((performance.now() - started) / 1000).toFixed(0)} s)`);
    console.log(
      `${'figure'.padEnd(24)} ${'truth'.padStart(8)} ${'fitted'.padStart(8)} ${'95 % interval'.padStart(20)} ${'error'.padStart(7)}  ok`,
    );
    for (const figure of row.figures) {
      const error = figure.truth === 0 ? '-' : `${(((figure.value - figure.truth) / figure.truth) * 100).toFixed(1)}%`;
      console.log(
        `${figure.name.padEnd(24)} ${show(figure.truth).padStart(8)} ${show(figure.value).padStart(8)} ${`[${show(figure.low)}, ${show(figure.high)}]`.padStart(20)} ${error.padStart(7)}  ${figure.ok ? 'yes' : 'NO'}`,
      );
      allOk &&= figure.ok;
    }
    console.log(
      `pick on the true scenario:   ${row.truePick} → P50 ${row.truePickP50.toFixed(1)} min on the true workload`,
    );
    console.log(
      `pick on the fitted scenario: ${row.fittedPick} → P50 ${row.fittedPickP50.toFixed(1)} min on the true workload (${(row.fittedPickP50 / row.truePickP50).toFixed(3)}×; goal ≤ 1.05×: ${row.pickOk ? 'met' : 'NOT met'})`,
    );
    allOk &&= row.pickOk;
  }
  console.log(`\n${allOk ? 'every goal met' : 'some goal NOT met'}`);
}
