/**
 * One HTML page of a simulation: the scenario in words, the report's table (sim/reportTable.ts's rows and marks) and
 * the charts (sim/charts.ts) inline as SVG, so the page stands alone.
 */
import type { Chart } from './charts.js';
import type { ConfigReport, SimulationReport } from './report.js';
import { formatPercentile, reportRows, rowLabel, tableNotes } from './reportTable.js';

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

const TABLE_COLUMNS: [string, (row: ConfigReport) => string][] = [
  ['merged', (row) => String(row.merged)],
  ['failed', (row) => String(row.failed)],
  ['cancelled', (row) => String(row.cancelled)],
  ['unfinished', (row) => String(row.unfinished)],
  ['merged / h', (row) => row.mergedPerHour.toFixed(2)],
  [
    'time to merge p50 / p90 / p99 (min)',
    (row) => (['p50', 'p90', 'p99'] as const).map((name) => formatPercentile(row.timeToMerge, name)).join(' / '),
  ],
  ['CI runs', (row) => String(row.ciRuns)],
  ['CI minutes', (row) => row.ciMinutes.toFixed(0)],
  ['runs / merged', (row) => (row.ciRunsPerMerged === null ? '-' : row.ciRunsPerMerged.toFixed(2))],
  [
    'runs / change (closed form)',
    (row) =>
      `${row.ciRunsPerChange === null ? '-' : row.ciRunsPerChange.toFixed(2)}${row.closedFormRunsPerChange === null ? '' : ` (${row.closedFormRunsPerChange.toFixed(2)})`}`,
  ],
  ['cancelled runs (minutes)', (row) => `${row.cancelledRuns} (${row.cancelledRunMinutes.toFixed(0)})`],
  ['good kicked', (row) => String(row.goodKicked)],
  ['broken merged', (row) => String(row.brokenMerged)],
  ['max depth', (row) => String(row.maxDepth)],
];

/** One page: the scenario, the table and the charts (inline SVG, so the page stands alone). */
export function indexHtml(report: SimulationReport, charts: Chart[], logs: string[]): string {
  const scenario = report.scenario;
  const rows = reportRows(report)
    .map(
      (row) =>
        `<tr><th>${escapeHtml(rowLabel(report, row))}</th>${TABLE_COLUMNS.map(([, cell]) => `<td>${escapeHtml(cell(row))}</td>`).join('')}</tr>`,
    )
    .join('\n');
  const notes = tableNotes(report);
  const settings = reportRows(report)
    .filter((row) => row.settings !== undefined)
    .map((row) => `<li><b>${escapeHtml(row.name)}</b>: <code>${escapeHtml(JSON.stringify(row.settings))}</code></li>`)
    .join('\n');
  const logLinks = logs.map((file) => `<a href="${escapeHtml(file)}">${escapeHtml(file)}</a>`).join(', ');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Greenline simulation: ${escapeHtml(scenario.name)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #222; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #ccc; padding: 0.3rem 0.6rem; text-align: right; }
th:first-child { text-align: left; }
thead th { background: #f3f3f3; }
figure { margin: 2rem 0; }
code { font-size: 0.85rem; }
</style>
</head>
<body>
<h1>Greenline simulation: ${escapeHtml(scenario.name)}</h1>
<p>${report.oracle.submitted} PRs arrived over ${scenario.hours} hours (${scenario.arrivalsPerHour} an hour${scenario.dailyCycle === undefined ? '' : ', with a daily cycle'}),
${report.oracle.failed} of them broken; CI median ${scenario.ci.medianMinutes} min, p90 ${scenario.ci.p90Minutes} min; flake rate ${scenario.flakeRate};
seed ${scenario.seed}; the queues ran on for up to ${scenario.drainHours} hours after the last arrival.
PRs still queued then are <em>unfinished</em>.</p>
<table>
<thead><tr><th>configuration</th>${TABLE_COLUMNS.map(([title]) => `<th>${escapeHtml(title)}</th>`).join('')}</tr></thead>
<tbody>
${rows}
</tbody>
</table>
${notes.length === 0 ? '' : `<p>${notes.map(escapeHtml).join('<br>\n')}</p>\n`}<p>Times to merge are over every good PR that arrived, in minutes from its arrival. The <b>oracle</b> knows which PRs are
broken and how long each PR's run lasts, and tests each good one once, alone, on arrival, with unlimited CI: nothing
merges sooner (in a queue without batching, optimistic merge or direct merge, no percentile is lower and no merged PR
costs less CI). The <b>singleQueue</b> tests one PR at a time, without batching.</p>
<ul>
${settings}
</ul>
${charts.map((chart) => `<figure>\n${chart.svg}\n<figcaption><a href="${chart.file}">${escapeHtml(chart.title)} (SVG)</a></figcaption>\n</figure>`).join('\n')}
<p>The whole report: <a href="report.json">report.json</a>.${logs.length === 0 ? '' : ` Event logs, for <code>greenline replay</code>: ${logLinks}.`}</p>
</body>
</html>
`;
}
