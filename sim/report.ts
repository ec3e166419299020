/**
 * The figures of one configuration or baseline, from what became of its PRs and runs, and the report as a table.
 *
 * Counting: every PR that arrived is exactly one of merged, failed (kicked), cancelled (a run timed out) or
 * unfinished (still in the queue when the simulation ended: the drain period ran out). Time-to-merge is from arrival
 * to merge, over merged PRs. CI cost counts every run started, cancelled ones included (a cancelled run used CI until
 * it was cancelled; a run still going at the end, until the end).
 */
import type { QueuePatch } from '../engine/queues.js';
import type { PrOutcome, QueueOutcome } from './queueRun.js';
import type { Scenario } from './scenario.js';

export interface Percentiles {
  p50: number | null;
  p90: number | null;
  p99: number | null;
}

export interface ConfigReport {
  name: string;
  /** The updateQueue settings the queue ran with (absent for the oracle, which is no queue). */
  settings?: QueuePatch;
  submitted: number;
  merged: number;
  failed: number;
  cancelled: number;
  unfinished: number;
  mergedPerHour: number;
  /** Minutes from arrival to merge. */
  timeToMerge: Percentiles;
  ciRuns: number;
  ciMinutes: number;
  ciRunsPerMerged: number | null;
  /** Good PRs that were kicked (by flaky runs). */
  goodKicked: number;
  /** Broken PRs that reached the target branch. */
  brokenMerged: number;
  /** The most PRs in the queue at once. */
  maxDepth: number;
  /** From the start until the queue emptied after the last arrival, or the end of the drain period. */
  simulatedHours: number;
  /** Inputs the engine processed (0 for the oracle). */
  events: number;
}

export interface SimulationReport {
  scenario: Scenario;
  configs: ConfigReport[];
  oracle: ConfigReport;
  singleQueue: ConfigReport;
}

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

export function timesToMerge(prs: readonly PrOutcome[]): number[] {
  return prs
    .filter((pr) => pr.state === 'MERGED' && pr.leftAt !== null)
    .map((pr) => ((pr.leftAt as number) - pr.arrivedAt) / MINUTE_MS)
    .sort((a, b) => a - b);
}

/** Depth changes in time order: +1 at each arrival, −1 when a PR leaves (leaving first at equal times). */
export function depthSteps(prs: readonly PrOutcome[]): { at: number; delta: number }[] {
  const steps: { at: number; delta: number }[] = [];
  for (const pr of prs) {
    steps.push({ at: pr.arrivedAt, delta: 1 });
    if (pr.leftAt !== null) steps.push({ at: pr.leftAt, delta: -1 });
  }
  return steps.sort((a, b) => a.at - b.at || a.delta - b.delta);
}

export function maxDepthOf(prs: readonly PrOutcome[]): number {
  let depth = 0;
  let max = 0;
  for (const step of depthSteps(prs)) {
    depth += step.delta;
    max = Math.max(max, depth);
  }
  return max;
}

export function summarise(name: string, outcome: QueueOutcome, settings?: QueuePatch): ConfigReport {
  const { prs, runs } = outcome;
  const count = (predicate: (pr: PrOutcome) => boolean) => prs.filter(predicate).length;
  const merged = count((pr) => pr.state === 'MERGED');
  const ttm = timesToMerge(prs);
  const simulatedHours = outcome.endAt / HOUR_MS;
  const ciMinutes = runs.reduce((sum, run) => sum + (run.endedAt - run.startedAt), 0) / MINUTE_MS;
  const at = (p: number) => {
    const value = percentile(ttm, p);
    return value === null ? null : round(value, 1);
  };
  return {
    name,
    ...(settings === undefined ? {} : { settings }),
    submitted: prs.length,
    merged,
    failed: count((pr) => pr.state === 'FAILED'),
    cancelled: count((pr) => pr.state === 'CANCELLED'),
    unfinished: count((pr) => pr.leftAt === null),
    mergedPerHour: simulatedHours > 0 ? round(merged / simulatedHours, 3) : 0,
    timeToMerge: { p50: at(50), p90: at(90), p99: at(99) },
    ciRuns: runs.length,
    ciMinutes: round(ciMinutes, 1),
    ciRunsPerMerged: merged > 0 ? round(runs.length / merged, 3) : null,
    goodKicked: count((pr) => !pr.broken && pr.state === 'FAILED'),
    brokenMerged: count((pr) => pr.broken && pr.state === 'MERGED'),
    maxDepth: maxDepthOf(prs),
    simulatedHours: round(simulatedHours, 3),
    events: outcome.events,
  };
}

const COLUMNS: [string, (report: ConfigReport) => string][] = [
  ['merged', (r) => String(r.merged)],
  ['failed', (r) => String(r.failed)],
  ['cancelled', (r) => String(r.cancelled)],
  ['unfinished', (r) => String(r.unfinished)],
  ['merged/h', (r) => r.mergedPerHour.toFixed(2)],
  ['ttm p50', (r) => minutes(r.timeToMerge.p50)],
  ['p90', (r) => minutes(r.timeToMerge.p90)],
  ['p99', (r) => minutes(r.timeToMerge.p99)],
  ['CI runs', (r) => String(r.ciRuns)],
  ['CI min', (r) => r.ciMinutes.toFixed(0)],
  ['runs/merged', (r) => (r.ciRunsPerMerged === null ? '-' : r.ciRunsPerMerged.toFixed(2))],
  ['good kicked', (r) => String(r.goodKicked)],
  ['broken merged', (r) => String(r.brokenMerged)],
  ['max depth', (r) => String(r.maxDepth)],
];

function minutes(value: number | null): string {
  return value === null ? '-' : value.toFixed(0);
}

/** The report as a plain-text table: configurations, then the two baselines. */
export function formatTable(report: SimulationReport): string {
  const rows = [...report.configs, report.singleQueue, report.oracle];
  const labels = rows.map((row) => (row === report.singleQueue ? 'singleQueue (baseline)' : row === report.oracle ? 'oracle (baseline)' : row.name));
  const cells = rows.map((row) => COLUMNS.map(([, cell]) => cell(row)));
  const first = Math.max('configuration'.length, ...labels.map((label) => label.length));
  const widths = COLUMNS.map(([title], index) => Math.max(title.length, ...cells.map((row) => (row[index] as string).length)));
  const line = (label: string, values: string[]) => [label.padEnd(first), ...values.map((value, index) => value.padStart(widths[index] as number))].join('  ');
  const scenario = report.scenario;
  const arrivals = report.oracle.submitted;
  const broken = report.oracle.failed;
  const heading =
    `${scenario.name}: ${arrivals} PRs over ${scenario.hours} h (${broken} broken), seed ${scenario.seed}; ` +
    `CI median ${scenario.ci.medianMinutes} min, p90 ${scenario.ci.p90Minutes} min; flake rate ${scenario.flakeRate}; ` +
    `drain up to ${scenario.drainHours} h. Times in minutes.`;
  return [heading, '', line('configuration', COLUMNS.map(([title]) => title)), ...rows.map((_, index) => line(labels[index] as string, cells[index] as string[]))].join('\n');
}
