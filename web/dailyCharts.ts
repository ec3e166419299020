/**
 * A queue's last days for the organization page: merges, the median time to merge and CI's cost (the minutes its runs
 * took) per day, read from the index of ended PRs (engine/history/endedIndex.ts) and their runs, and drawn with
 * vega-lite as one SVG of three labelled bar charts (axes with titles, the days along the bottom).
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
  /** Runs that ended that day, of the PRs that have ended (each run once, however many PRs it tested). */
  runs: number;
  /** What those runs took, start to end, in minutes (to a tenth): CI's cost that day. */
  ciMinutes: number;
}

/** When a run started and ended (ISO; null while it runs), or undefined when it is gone (pruned). */
export type RunTimes = (runId: string) => { createdAt: string; endedAt: string | null } | undefined;

/** The first instant of the oldest day drawn. */
export function daysSince(now: number): number {
  return Math.floor(now / DAY_MS) * DAY_MS - (DAYS - 1) * DAY_MS;
}

export function dailyFigures(ended: readonly EndedPullRequest[], now: number, runTimes: RunTimes): DayFigures[] {
  const from = daysSince(now);
  const days = Array.from({ length: DAYS }, (_, index) => ({
    start: from + index * DAY_MS,
    merged: [] as number[],
    runs: 0,
    runMs: 0,
  }));
  const dayOf = (at: number) => days[Math.floor((at - from) / DAY_MS)];
  const seen = new Set<string>();
  for (const entry of ended) {
    // A run counts on the day it ended, once, whichever of its PRs names it.
    for (const runId of entry.runIds) {
      if (seen.has(runId)) continue;
      seen.add(runId);
      const run = runTimes(runId);
      const end = run?.endedAt == null ? Number.NaN : Date.parse(run.endedAt);
      const start = run === undefined ? Number.NaN : Date.parse(run.createdAt);
      const day = Number.isFinite(end) && Number.isFinite(start) ? dayOf(end) : undefined;
      if (day === undefined) continue;
      day.runs++;
      day.runMs += Math.max(0, end - start);
    }
    if (entry.state !== 'MERGED') continue;
    const at = Date.parse(entry.endedAt);
    const day = dayOf(at);
    if (day === undefined) continue;
    const submitted = entry.submittedAt === null ? Number.NaN : Date.parse(entry.submittedAt);
    day.merged.push(Number.isFinite(submitted) ? (at - submitted) / 60_000 : Number.NaN);
  }
  return days.map((day) => {
    const minutes = median(day.merged.filter((value) => Number.isFinite(value)));
    return {
      day: new Date(day.start).toISOString().slice(0, 10),
      merges: day.merged.length,
      medianMinutesToMerge: minutes === null ? null : Math.round(minutes * 10) / 10,
      runs: day.runs,
      ciMinutes: Math.round(day.runMs / 6_000) / 10,
    };
  });
}

const panel = (field: keyof DayFigures, title: string, color: string, days: string | null = null) => ({
  width: 220,
  height: 60,
  mark: { type: 'bar', color },
  encoding: {
    x: { field: 'label', type: 'ordinal', sort: null, title: days, axis: { labelAngle: 0 } },
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
  const values = days.map((day) => ({
    ...day,
    label: day.day.slice(5),
    medianMinutesToMerge: day.medianMinutesToMerge ?? 0,
  }));
  const spec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    data: { values },
    vconcat: [
      panel('merges', 'merges', '#0b6e4f'),
      panel('medianMinutesToMerge', 'median min to merge', '#0550ae'),
      panel('ciMinutes', 'CI minutes', '#7a4d00', 'day (UTC)'),
    ],
    config: { view: { stroke: null }, axis: { labelFontSize: 10, titleFontSize: 10 } },
  } as TopLevelSpec;
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const words = days
    .map(
      (day) =>
        `${day.day}: ${day.merges} merged${day.medianMinutesToMerge === null ? '' : ` in a median ${day.medianMinutesToMerge} minutes`}, ${day.ciMinutes} CI minutes in ${day.runs} test runs`,
    )
    .join('; ');
  return svg.replace('<svg ', `<svg role="img" aria-label="last ${DAYS} days: ${words}" `);
}
