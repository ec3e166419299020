/** A small trend chart (merges per five minutes over the last hour), drawn with vega-lite into an SVG on the server. */
import { parse, View } from 'vega';
import { compile, type TopLevelSpec } from 'vega-lite';
import { TREND_BUCKETS } from './stats.js';

export async function trendSvg(trend: number[], label: string): Promise<string> {
  const values = trend.map((merges, index) => ({ minutesAgo: (TREND_BUCKETS - index) * 5, merges }));
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 200,
    height: 40,
    data: { values },
    mark: { type: 'bar', color: '#0b6e4f' },
    encoding: {
      x: { field: 'minutesAgo', type: 'ordinal', sort: 'descending', axis: null },
      y: {
        field: 'merges',
        type: 'quantitative',
        axis: null,
        scale: { domainMin: 0, domainMax: Math.max(1, ...trend) },
      },
    },
    config: { view: { stroke: null } },
  };
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  // An accessible name: what the bars say, in words.
  return svg.replace('<svg ', `<svg role="img" aria-label="${label}" `);
}

/** A test's runs and failures per day, as grouped bars. */
export async function historySvg(days: { day: string; runs: number; fails: number }[]): Promise<string> {
  const values = days.flatMap((entry) => [
    { day: entry.day, kind: 'passed or skipped', count: entry.runs - entry.fails },
    { day: entry.day, kind: 'failed', count: entry.fails },
  ]);
  const spec: TopLevelSpec = {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    width: 360,
    height: 140,
    data: { values },
    mark: 'bar',
    encoding: {
      x: { field: 'day', type: 'ordinal', title: null },
      y: { field: 'count', type: 'quantitative', title: 'runs' },
      color: {
        field: 'kind',
        type: 'nominal',
        title: null,
        scale: { domain: ['passed or skipped', 'failed'], range: ['#8fd19e', '#b42318'] },
      },
    },
  };
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  const svg = await view.toSVG();
  view.finalize();
  const words = days.map((entry) => `${entry.day}: ${entry.fails} of ${entry.runs} failed`).join('; ');
  return svg.replace('<svg ', `<svg role="img" aria-label="${words}" `);
}
