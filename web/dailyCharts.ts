/**
 * A queue's last days for the organization page: merges, the median time to merge and the test runs (what CI was
 * asked for: its cost) per day, read from the index of ended PRs (engine/history/endedIndex.ts) and drawn with
 * vega-lite as one SVG of three labelled bar charts (axes with titles, days along the bottom).
 */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import type { EndedPullRequest } from '../engine/history/endedIndex.js';
import { median } from './stats.js';

export const DAYS = 7;
const DAY_MS = 86_400_000;

export interface DayFigures {
  /** The UTC day, YYYY-MM-DD. */
  day: string;
  merges: number;
  /** Median minutes from submission to merge of the PRs merged that day; null when none was. */
  medianMinutesToMerge: number | null;
  /** Test runs of the PRs that ended that day (each run once). */
  runs: number;
}

/** The first instant of the oldest day drawn. */
export function daysSince(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
}

export function dailyFigures(ended: readonly EndedPullRequest[], now: number): DayFigures[] {
  const from = daysSince(now);
  const days = Array.from({ length: DAYS }, (_, index) => ({ start: from + index * DAY_MS, merged: [] as number[], runs: new Set<string>() }));
  for (const entry of ended) {
    const at = Date.parse(entry.endedAt);
    const day = days[Math.floor((at - from) / DAY_MS)];
    if (day === undefined) continue;
    for (const runId of entry.runIds) day.runs.add(runId);
    if (entry.state !== 'MERGED') continue;
    const submitted = entry.submittedAt === null ? Number.NaN : Date.parse(entry.submittedAt);
    day.merged.push(Number.isFinite(submitted) ? (at - submitted) / 60_000 : Number.NaN);
  }
  return days.map((day) => {
    const minutes = median(day.merged.filter((value) => Number.isFinite(value)));
    return {
      day: new Date(day.start).toISOString().slice(0, 10),
      merges: day.merged.length,
      medianMinutesToMerge: minutes === null ? null : Math.round(minutes * 10) / 10,
      runs: day.runs.size,
    };
  });
}

const panel = (field: keyof DayFigures, title: string, color: string) => ({
  width: 220,
  height: 60,
  mark: { type: 'bar', color },
  encoding: {
    x: { field: 'label', type: 'ordinal', sort: null, title: null, axis: { labelAngle: 0 } },
    y: { field, type: 'quantitative', title, axis: { tickCount: 3, titleFontWeight: 'normal' } },
  },
});

/** Drawn charts by their figures: they change only when a PR ends or a day turns, and a page redraws on any change. */
const drawn = new Map<string, string>();

/** The three charts as one SVG, with an accessible name that says every figure in words. */
export async function dailySvg(days: readonly DayFigures[]): Promise<string> {
  const key = JSON.stringify(days);
  const cached = drawn.get(key);
  if (cached !== undefined) return cached;
  const svg = await drawDaily(days);
  if (drawn.size >= 256) drawn.delete(drawn.keys().next().value!);
  drawn.set(key, svg);
  return svg;
}

async function drawDaily(days: readonly DayFigures[]): Promise<string> {
  const values = days.map((day) => ({ ...day, label: day.day.slice(5), medianMinutesToMerge: day.medianMinutesToMerge ?? 0 }));
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    vconcat: [panel('merges', 'merges', '#0b6e4f'), panel('medianMinutesToMerge', 'median min to merge', '#0550ae'), panel('runs', 'test runs (CI)', '#7a4d00')],
    config: { view: { stroke: null }, axis: { labelFontSize: 10, titleFontSize: 10 } },
  } as TopLevelSpec;
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const words = days
    .map((day) => `${day.day}: ${day.merges} merged${day.medianMinutesToMerge === null ? '' : ` in a median ${day.medianMinutesToMerge} minutes`}, ${day.runs} test runs`)
    .join('; ');
  return svg.replace('<svg ', `<svg role="img" aria-label="last ${DAYS} days: ${words}" `);
}
