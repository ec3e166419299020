/**
 * The simulation report as a plain-text table (the CLI's `greenline sim`) and the pieces the HTML report shares with
 * it (sim/charts.ts): the rows and their labels, a percentile's mark (">N" a lower bound, "-" none), and what the
 * marks shown mean. The figures themselves are sim/report.ts's.
 */
import {
  type ConfigReport,
  PERCENTILES,
  type PercentileName,
  type Percentiles,
  type SimulationReport,
} from './report.js';

/** A percentile as the table shows it: ">N" for a lower bound, "-" for none (the PR at its rank never merged). */
export function formatPercentile(ttm: Percentiles, name: PercentileName): string {
  const value = ttm[name];
  if (value === null) return '-';
  return `${ttm.censored.includes(name) ? '>' : ''}${value.toFixed(0)}`;
}

const COLUMNS: [string, (report: ConfigReport) => string][] = [
  ['merged', (r) => String(r.merged)],
  ['failed', (r) => String(r.failed)],
  ['cancelled', (r) => String(r.cancelled)],
  ['unfinished', (r) => String(r.unfinished)],
  ['merged/h', (r) => r.mergedPerHour.toFixed(2)],
  ['ttm p50', (r) => formatPercentile(r.timeToMerge, 'p50')],
  ['p90', (r) => formatPercentile(r.timeToMerge, 'p90')],
  ['p99', (r) => formatPercentile(r.timeToMerge, 'p99')],
  ['CI runs', (r) => String(r.ciRuns)],
  ['CI min', (r) => r.ciMinutes.toFixed(0)],
  ['runs/merged', (r) => (r.ciRunsPerMerged === null ? '-' : r.ciRunsPerMerged.toFixed(2))],
  ['runs/change', (r) => (r.ciRunsPerChange === null ? '-' : r.ciRunsPerChange.toFixed(2))],
  ['closed form', (r) => (r.closedFormRunsPerChange === null ? '' : r.closedFormRunsPerChange.toFixed(2))],
  ['cancelled runs', (r) => String(r.cancelledRuns)],
  ['cancelled min', (r) => r.cancelledRunMinutes.toFixed(0)],
  ['good kicked', (r) => String(r.goodKicked)],
  ['broken merged', (r) => String(r.brokenMerged)],
  ['max depth', (r) => String(r.maxDepth)],
];

/** Every row: configurations, then the two baselines. */
export function reportRows(report: SimulationReport): ConfigReport[] {
  return [...report.configs, report.singleQueue, report.oracle];
}

/** A row's label: its name, "(baseline)" for a baseline, "saturated" when it was. */
export function rowLabel(report: SimulationReport, row: ConfigReport): string {
  const notes = [
    ...(row === report.singleQueue || row === report.oracle ? ['baseline'] : []),
    ...(row.saturated ? ['saturated'] : []),
  ];
  return notes.length === 0 ? row.name : `${row.name} (${notes.join(', ')})`;
}

/** What the table's marks mean, for the marks it shows. */
export function tableNotes(report: SimulationReport): string[] {
  const rows = reportRows(report);
  const notes: string[] = [];
  if (rows.some((row) => row.timeToMerge.censored.length > 0)) {
    notes.push(
      '>N: a lower bound: PRs still queued at the end (their time to merge is at least their time in the queue) rank at or below it.',
    );
  }
  if (rows.some((row) => PERCENTILES.some((name) => row.timeToMerge[name] === null))) {
    notes.push('-: the good PR at this rank never merged (kicked or cancelled), or no good PR arrived.');
  }
  if (rows.some((row) => row.closedFormRunsPerChange !== null)) {
    notes.push(
      `closed form: the runs per change of bisection in halves for the configuration's batch size at the broken rate ${report.scenario.brokenRate} (a batch alone; with skip-redundant, the first half first).`,
    );
  }
  if (rows.some((row) => row.saturated)) {
    notes.push(
      `saturated: the queue grew past ${report.scenario.saturationDepth} PRs; its simulation stopped there, and the PRs it held or had yet to receive are unfinished.`,
    );
  }
  return notes;
}

/** The report as a plain-text table: configurations, then the two baselines, then what its marks mean. */
export function formatTable(report: SimulationReport): string {
  const rows = reportRows(report);
  const labels = rows.map((row) => rowLabel(report, row));
  const cells = rows.map((row) => COLUMNS.map(([, cell]) => cell(row)));
  const first = Math.max('configuration'.length, ...labels.map((label) => label.length));
  const widths = COLUMNS.map(([title], index) =>
    Math.max(title.length, ...cells.map((row) => (row[index] as string).length)),
  );
  const line = (label: string, values: string[]) =>
    [label.padEnd(first), ...values.map((value, index) => value.padStart(widths[index] as number))].join('  ');
  const scenario = report.scenario;
  const arrivals = report.oracle.submitted;
  const broken = report.oracle.failed;
  const heading =
    `${scenario.name}: ${arrivals} PRs over ${scenario.hours} h (${broken} broken), seed ${scenario.seed}; ` +
    `CI median ${scenario.ci.medianMinutes} min, p90 ${scenario.ci.p90Minutes} min; flake rate ${scenario.flakeRate}; ` +
    `drain up to ${scenario.drainHours} h. Times in minutes, from arrival, over every good PR.`;
  const notes = tableNotes(report);
  return [
    heading,
    '',
    line(
      'configuration',
      COLUMNS.map(([title]) => title),
    ),
    ...rows.map((_, index) => line(labels[index] as string, cells[index] as string[])),
    ...(notes.length === 0 ? [] : ['', ...notes]),
  ].join('\n');
}
