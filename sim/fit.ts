/**
 * A workload fitted to a queue's history (history.ts), each figure with a 95 % interval, and the scenario it makes:
 *
 * - arrivals: a Poisson rate over the span of the arrivals, and the daily cycle's first harmonic (amplitude and peak
 *   hour, from the mean of cos and sin of the hour of each arrival; kept in the scenario when its interval excludes
 *   0); the shares by day of the week are printed (the scenario has no weekly cycle);
 * - CI durations: the median and 90th percentile of runs with a verdict, cancelled runs counting as censored
 *   (Kaplan–Meier: a run cancelled after 10 minutes would have lasted longer), pooled and per run size;
 * - broken and flaky rates, together (fitFailures): a merged PR is good; a kicked one is broken or was kicked by
 *   flakes, told apart by the runs that tested it with nothing unknown beside it (every other PR in them merged);
 * - impacted targets (parallel mode): targets per PR, the share of ALL, how many targets there are (Chao1: seen,
 *   plus those a sample this size would miss) and the Zipf skew of their use;
 * - priorities: their shares among arrivals.
 */
import type { QueueHistory } from './history.js';
import { configOf } from './history.js';
import { fitFailures } from './fitFailures.js';
import { fitTargets } from './fitTargets.js';
import { PRIORITY_NAMES, parseScenario, type Scenario } from './scenario.js';
import { bootstrap, type Estimate, kaplanMeierQuantile, type Observation, poissonRate, proportion } from './stats.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

export interface FittedFigure extends Estimate {
  name: string;
  unit: string;
}

export interface Fit {
  figures: FittedFigure[];
  /** Median and 90th percentile per run size (PRs under test). */
  durationsBySize: { size: number; median: Estimate; p90: Estimate | null }[];
  weekdays: { day: string; share: Estimate }[];
  scenario: Scenario;
  notes: string[];
}

export class FitError extends Error {}

function dailyCycle(hours: readonly number[]): { amplitude: number; peakHour: number } {
  let c = 0;
  let s = 0;
  for (const hour of hours) {
    c += Math.cos((2 * Math.PI * hour) / 24);
    s += Math.sin((2 * Math.PI * hour) / 24);
  }
  c /= Math.max(1, hours.length);
  s /= Math.max(1, hours.length);
  const peak = ((Math.atan2(s, c) * 24) / (2 * Math.PI) + 24) % 24;
  return { amplitude: Math.min(1, 2 * Math.hypot(c, s)), peakHour: peak };
}

export function fitHistory(history: QueueHistory, name = 'fitted'): Fit {
  const figures: FittedFigure[] = [];
  const notes: string[] = [];
  const add = (figureName: string, unit: string, estimate: Estimate) =>
    figures.push({ name: figureName, unit, ...estimate });
  const { prs } = history;
  if (prs.length < 2)
    throw new FitError(
      `the queue's history holds ${prs.length} PR${prs.length === 1 ? '' : 's'}: too few to fit a workload`,
    );

  // Arrivals: over the span from the log's first event to the last arrival, plus one mean gap (the next one's wait).
  const first = history.cutBefore ?? history.from;
  const last = (prs.at(-1) as (typeof prs)[number]).arrivedAt;
  const spanHours = Math.max((last - first) / HOUR_MS, 1 / 60);
  const exposure = spanHours * (1 + 1 / prs.length);
  const rate = poissonRate(prs.length, exposure);
  add('arrivals per hour', '/h', rate);
  const hourOf = (at: number) => (at % (24 * HOUR_MS)) / HOUR_MS;
  const hours = prs.map((pr) => hourOf(pr.arrivedAt));
  const cycle = dailyCycle(hours);
  const cycleBand = bootstrap(hours, (sample) => dailyCycle(sample).amplitude);
  // Amplitudes are biased up (noise alone gives about 2/√n, and a bootstrap of it never reaches 0): keep the cycle
  // only when clearly there; otherwise the fitted amplitude is 0, its interval from 0 to the bootstrap's top.
  const noise = 2 / Math.sqrt(prs.length);
  const keepCycle = spanHours >= 24 && cycle.amplitude > 2 * noise;
  add(
    'daily cycle amplitude',
    '',
    keepCycle
      ? { value: cycle.amplitude, ...cycleBand, n: prs.length }
      : { value: 0, low: 0, high: Math.max(cycleBand.high, cycle.amplitude), n: prs.length },
  );
  if (keepCycle) {
    // The peak's interval: bootstrapped as its distance from the fitted peak (on the circle), so 23 h and 1 h are close.
    const offset = (hour: number) => ((hour - cycle.peakHour + 36) % 24) - 12;
    const peakBand = bootstrap(hours, (sample) => offset(dailyCycle(sample).peakHour));
    add('daily cycle peak hour', 'h UTC', {
      value: cycle.peakHour,
      low: cycle.peakHour + peakBand.low,
      high: cycle.peakHour + peakBand.high,
      n: prs.length,
    });
  } else
    notes.push(
      `no daily cycle kept: amplitude ${cycle.amplitude.toFixed(2)} is within what noise gives ${spanHours < 24 ? 'over less than a day' : `(2 × ${noise.toFixed(2)})`}`,
    );
  const weekday = (at: number) => (new Date(at).getUTCDay() + 6) % 7;
  const weekdays = DAYS.map((day, index) => ({
    day,
    share: proportion(prs.filter((pr) => weekday(pr.arrivedAt) === index).length, prs.length),
  }));

  // CI durations, cancelled runs censored; runs still going at the end censored at the end.
  const observationOf = (run: QueueHistory['runs'][number]): Observation | null => {
    if (run.status === 'succeeded' || run.status === 'failed')
      return run.endedAt === null ? null : { time: (run.endedAt - run.startedAt) / MINUTE_MS, complete: true };
    const end = run.endedAt ?? history.to;
    return { time: Math.max(0, (end - run.startedAt) / MINUTE_MS), complete: false };
  };
  const observations = history.runs
    .map(observationOf)
    .filter((observation): observation is Observation => observation !== null);
  const median = kaplanMeierQuantile(observations, 0.5);
  const p90 = kaplanMeierQuantile(observations, 0.9);
  if (median === null) throw new FitError('no run of the queue reached a verdict: the CI durations cannot be fitted');
  add('CI median', 'min', median);
  const p90Value = p90 !== null && Number.isFinite(p90.value) ? p90 : { ...median, low: median.value, high: Infinity };
  add('CI p90', 'min', p90Value);
  const sizes = [...new Set(history.runs.map((run) => run.prs.length))].sort((a, b) => a - b);
  const durationsBySize = sizes.flatMap((size) => {
    const own = history.runs
      .filter((run) => run.prs.length === size)
      .map(observationOf)
      .filter((observation): observation is Observation => observation !== null);
    const sizeMedian = kaplanMeierQuantile(own, 0.5);
    return sizeMedian === null ? [] : [{ size, median: sizeMedian, p90: kaplanMeierQuantile(own, 0.9) }];
  });

  const failures = fitFailures(history);
  add('broken rate', '', failures.broken);
  add('flake rate', '', failures.flake);
  notes.push(...failures.notes);

  const targets = history.targets.size > 0 ? fitTargets(history) : undefined;
  if (targets !== undefined) {
    add('targets per PR', '', targets.perPr);
    add('ALL share', '', targets.allShare);
    add('targets (count)', '', targets.count);
    add('targets skew', '', targets.skew);
    add('target overlap (two PRs share one)', '', targets.overlap);
  }

  const withPriority = prs.filter((pr) => pr.priority !== undefined);
  const mix: Partial<Record<(typeof PRIORITY_NAMES)[number], number>> = {};
  if (withPriority.length > 0) {
    for (const priority of PRIORITY_NAMES) {
      const share = proportion(prs.filter((pr) => (pr.priority ?? 'medium') === priority).length, prs.length);
      add(`priority ${priority}`, '', share);
      if (share.value > 0) mix[priority] = Number(share.value.toFixed(4));
    }
  }

  const scenario = parseScenario({
    name,
    hours: Number(spanHours.toFixed(2)),
    arrivalsPerHour: Number(rate.value.toFixed(3)),
    ...(keepCycle
      ? { dailyCycle: { amplitude: Number(cycle.amplitude.toFixed(3)), peakHour: Number(cycle.peakHour.toFixed(2)) } }
      : {}),
    ...(Object.keys(mix).length > 0 ? { priorityMix: mix } : {}),
    ci: {
      medianMinutes: Number(median.value.toFixed(2)),
      p90Minutes: Number(Math.max(median.value, p90Value.value).toFixed(2)),
    },
    brokenRate: Number(Math.min(0.99, failures.broken.value).toFixed(4)),
    flakeRate: Number(Math.min(0.99, failures.flake.value).toFixed(4)),
    ...(targets === undefined ? {} : { targets: targets.scenario }),
    configs: [configOf('current', history.settings)],
  });
  return { figures, durationsBySize, weekdays, scenario, notes };
}

const show = (value: number) =>
  !Number.isFinite(value)
    ? '∞'
    : Math.abs(value) >= 100
      ? value.toFixed(0)
      : Math.abs(value) >= 1
        ? value.toFixed(2)
        : value.toFixed(4);

export function formatFit(fit: Fit): string {
  const lines = ['Fitted from the history (95 % intervals):'];
  for (const figure of fit.figures) {
    lines.push(
      `  ${figure.name.padEnd(36)} ${show(figure.value).padStart(9)} ${figure.unit.padEnd(6)} [${show(figure.low)}, ${show(figure.high)}]  n=${figure.n}`,
    );
  }
  lines.push('  CI duration by run size (PRs under test): median [interval], p90');
  for (const { size, median, p90 } of fit.durationsBySize) {
    lines.push(
      `    ${String(size).padStart(3)} PR${size === 1 ? ' ' : 's'}  ${show(median.value).padStart(8)} min [${show(median.low)}, ${show(median.high)}]  p90 ${p90 === null ? '-' : show(p90.value)}  n=${median.n}`,
    );
  }
  lines.push(
    `  arrivals by day of the week: ${fit.weekdays.map(({ day, share }) => `${day.slice(0, 3)} ${(share.value * 100).toFixed(1)}% [${(share.low * 100).toFixed(1)}, ${(share.high * 100).toFixed(1)}]`).join(', ')}`,
  );
  for (const note of fit.notes) lines.push(`  note: ${note}`);
  return lines.join('\n');
}
