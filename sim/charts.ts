/**
 * Charts of a simulation, drawn with vega-lite and rendered to SVG in Node (no browser): the distribution of
 * time-to-merge, queue depth over time, and CI cost against latency per configuration. The HTML page that holds them
 * with the report's table is sim/chartsPage.ts.
 */
import * as vega from 'vega';
import * as vegaLite from 'vega-lite';
import type { TopLevelSpec } from 'vega-lite';
import { depthSteps, mergeTimes } from './report.js';
import { reportRows } from './reportTable.js';
import type { Simulation } from './simulate.js';

const HOUR_MS = 3_600_000;
const WIDTH = 640;
const HEIGHT = 300;

/** What every chart starts with: the schema, its title and its size. */
function frame(text: string, subtitle: string | string[]) {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text, subtitle },
    width: WIDTH,
    height: HEIGHT,
  } as const;
}
/** Points per series in the depth chart: the most PRs in the queue within each slice of time. */
const DEPTH_SLICES = 240;

export interface Chart {
  file: string;
  title: string;
  svg: string;
}

function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

function names(simulation: Simulation): string[] {
  return simulation.queues.map((queue) => queue.name);
}

/**
 * The share of good PRs merged within a time of arriving, per queue. Every point is exact: the share counts every good
 * PR that arrived, and a curve ends below 100 % when some never merged or were still queued at the end (their times
 * are unknown or infinite, and not drawn).
 */
export function timeToMergeSpec(simulation: Simulation): TopLevelSpec {
  const values = simulation.queues.flatMap((queue) => {
    const times = mergeTimes(queue.outcome);
    const merged = times.filter((time) => !time.censored && time.minutes !== Infinity).map((time) => time.minutes);
    if (merged.length === 0) return [];
    return Array.from({ length: 101 }, (_, share) => Math.max(1, Math.ceil((share / 100) * times.length)))
      .map((rank, share) => ({ rank, share }))
      .filter(({ rank }) => rank <= merged.length)
      .map(({ rank, share }) => ({
        configuration: queue.name,
        // A log scale has no 0 (a direct merge takes no time): such a merge is drawn at 0.1 minute.
        minutes: Math.max(0.1, round(merged[rank - 1] as number, 2)),
        share: share / 100,
      }));
  });
  return {
    ...frame('Time to merge', [
      'share of good PRs merged within a time of arriving;',
      'a curve that ends below 100 %: the other PRs never merged, or were still queued at the end',
    ]),
    config: { legend: { labelLimit: 360 } },
    data: { values },
    mark: { type: 'line', interpolate: 'step-after' },
    encoding: {
      x: {
        field: 'minutes',
        type: 'quantitative',
        scale: { type: 'log' },
        title: 'minutes from arrival to merge (log scale)',
      },
      y: {
        field: 'share',
        type: 'quantitative',
        axis: { format: '%' },
        scale: { domain: [0, 1] },
        title: 'good PRs merged',
      },
      color: { field: 'configuration', type: 'nominal', scale: { domain: names(simulation) }, title: 'configuration' },
    },
  };
}

export function depthSpec(simulation: Simulation): TopLevelSpec {
  const span = Math.max(1, ...simulation.queues.map((queue) => queue.outcome.endAt));
  const slice = span / DEPTH_SLICES;
  const values = simulation.queues.flatMap((queue) => {
    const maxima = new Array<number>(DEPTH_SLICES).fill(0);
    const end = queue.outcome.endAt;
    const steps = depthSteps(queue.outcome.prs, end);
    let depth = 0;
    let next = 0;
    // The depth holds between steps: a slice sees the depth it starts with and every depth reached within it.
    for (let index = 0; index < DEPTH_SLICES; index++) {
      const sliceEnd = (index + 1) * slice;
      let max = depth;
      for (let step = steps[next]; step !== undefined && step.at < sliceEnd; step = steps[++next]) {
        depth += step.delta;
        max = Math.max(max, depth);
      }
      maxima[index] = max;
    }
    return maxima
      .map((value, index) => ({ configuration: queue.name, hours: round((index * slice) / HOUR_MS, 3), depth: value }))
      .filter((point) => point.hours * HOUR_MS <= end);
  });
  return {
    ...frame('Queue depth', `PRs in the queue (the most within each ${round(slice / 60_000, 1)}-minute slice)`),
    config: { legend: { labelLimit: 360 } },
    data: { values },
    mark: { type: 'line', interpolate: 'step-after' },
    encoding: {
      x: { field: 'hours', type: 'quantitative', title: 'hours' },
      y: { field: 'depth', type: 'quantitative', title: 'PRs in the queue' },
      color: { field: 'configuration', type: 'nominal', scale: { domain: names(simulation) }, title: 'configuration' },
    },
  };
}

/**
 * CI minutes per merged PR against the median time to merge, with a line up to the 90th percentile. A percentile that
 * is a lower bound is not drawn as exact: a hollow triangle for the median, a dashed line for the 90th percentile, and
 * the label says so; a 90th percentile whose PR never merged has no line, and a row whose median PR never merged no
 * point (the label of the others says so).
 */
export function costSpec(simulation: Simulation): TopLevelSpec {
  const report = simulation.report;
  const values = reportRows(report)
    .filter((row) => row.merged > 0 && row.timeToMerge.p50 !== null)
    .map((row) => {
      const p50Censored = row.timeToMerge.censored.includes('p50');
      const p90Censored = row.timeToMerge.censored.includes('p90');
      const notes = [
        ...(p50Censored ? ['median ≥'] : []),
        ...(p90Censored ? ['p90 ≥'] : []),
        ...(row.timeToMerge.p90 === null ? ['p90: never merged'] : []),
      ];
      return {
        configuration: row.name,
        label: notes.length === 0 ? row.name : `${row.name} (${notes.join(', ')})`,
        ciMinutesPerMerged: round(row.ciMinutes / row.merged, 2),
        p50: row.timeToMerge.p50,
        p90: row.timeToMerge.p90,
        p50Censored,
        p90Censored,
      };
    });
  const color = {
    field: 'configuration',
    type: 'nominal',
    scale: { domain: names(simulation) },
    legend: null,
  } as const;
  const x = {
    field: 'ciMinutesPerMerged',
    type: 'quantitative',
    title: 'CI minutes per merged PR',
    scale: { zero: false },
  } as const;
  const y = {
    field: 'p50',
    type: 'quantitative',
    title: 'minutes from arrival to merge (log scale)',
    scale: { type: 'log' },
  } as const;
  return {
    ...frame('Cost against latency', [
      'dot: median time to merge; line up to the 90th percentile',
      'hollow triangle, dashed line: a lower bound (PRs still queued at the end)',
    ]),
    data: { values },
    layer: [
      {
        transform: [{ filter: 'datum.p90 !== null' }],
        mark: { type: 'rule', strokeWidth: 2, opacity: 0.6 },
        encoding: {
          x,
          y,
          y2: { field: 'p90' },
          color,
          strokeDash: { condition: { test: 'datum.p90Censored', value: [4, 3] }, value: [1, 0] },
        },
      },
      {
        transform: [{ filter: '!datum.p50Censored' }],
        mark: { type: 'point', filled: true, size: 80 },
        encoding: { x, y, color },
      },
      {
        transform: [{ filter: 'datum.p50Censored' }],
        mark: { type: 'point', filled: false, shape: 'triangle-up', size: 100, strokeWidth: 2 },
        encoding: { x, y, color },
      },
      {
        mark: { type: 'text', align: 'left', dx: 8, dy: -6 },
        encoding: { x, y, text: { field: 'label' }, color },
      },
    ],
  };
}

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export async function renderCharts(simulation: Simulation): Promise<Chart[]> {
  return [
    { file: 'time-to-merge.svg', title: 'Time to merge', svg: await renderSvg(timeToMergeSpec(simulation)) },
    { file: 'queue-depth.svg', title: 'Queue depth over time', svg: await renderSvg(depthSpec(simulation)) },
    { file: 'cost-latency.svg', title: 'Cost against latency', svg: await renderSvg(costSpec(simulation)) },
  ];
}
