/**
 * The organization page: every queue with its state, depth, runs in progress, its last hour, and its last days (merges,
 * median time to merge and CI minutes per day: dailyCharts.ts).
 */
import type { Engine } from '../engine/engine.js';
import { html, raw, type Html } from './html.js';
import { queueName, queuePath } from './queueAccess.js';
import { formatDuration, lastHour } from './stats.js';
import { trendSvg } from './trend.js';
import { DAYS, dailyFigures, dailySvg, daysSince } from './dailyCharts.js';

export async function orgPage(engine: Engine, org: string): Promise<Html> {
  const queues = engine.listQueues(org);
  if (queues.length === 0) {
    return html`<p>No queue yet. Create one with <code>POST /v1/createQueue</code> (see the README).</p>`;
  }
  const now = engine.clock.now();
  const cards = await Promise.all(
    queues.map(async (queue) => {
      const hour = lastHour(engine, queue.id, now);
      const trend = await trendSvg(hour.trend, `merges per 5 minutes over the last hour: ${hour.trend.join(', ')}`);
      const days = await dailySvg(
        dailyFigures(engine.endedSince(queue.id, daysSince(now)), now, (runId) => engine.testRun(queue.id, runId)),
      );
      return html`<section class="card" data-queue="${queue.id}"><h2><a href="${queuePath(queue)}">${queueName(queue)}</a></h2>
<p class="muted">${queue.repo.host} · ${queue.settings.mode} mode</p>
<dl class="figures"><dt>State</dt><dd><span class="state state-${queue.state}" data-field="state">${queue.state}</span></dd>
<dt>Depth (ready PRs)</dt><dd data-field="depth">${queue.runtime.lineup.length}</dd>
<dt>Not ready</dt><dd data-field="not-ready">${queue.runtime.waiting.length}</dd>
<dt>Runs in progress</dt><dd data-field="runs">${queue.runtime.activeRuns.length}</dd>
<dt>Merges, last hour</dt><dd data-field="merges">${hour.merges}</dd>
<dt>P50 time in queue of the PRs merged, last hour</dt><dd data-field="p50">${formatDuration(hour.p50InQueueMs)}</dd></dl>
<div class="trend">${raw(trend)}</div>
<h3>Last ${DAYS} days</h3><div class="daily">${raw(days)}</div></section>`;
    }),
  );
  return html`<div class="cards">${cards}</div>`;
}
