/**
 * The PR page, read at a glance: its state in words, its place, when it should merge (the estimate) or how long it has
 * been in the queue, what it waits for, links to it and its checks on the host; what a person may do to it; the path
 * it took (the full state chart on demand); its timeline in plain words; its runs with their durations.
 */
import type { Engine, TestRunDetails } from '../engine/engine.js';
import type { PullRequestRecord, TimelineEntry } from '../engine/model/pullRequests.js';
import type { QueueRecord } from '../engine/model/queues.js';
import { hasPullRequestTag } from '../machines/index.js';
import { isEnqueued } from '../machines/vocabulary.js';
import { html, raw, type Html } from './html.js';
import { pathSvg } from './pathChart.js';
import { prActions } from './prActions.js';
import { keyOf, queueName, queuePath } from './queueAccess.js';
import { waitsFor } from './queuePage.js';
import { runsTable, safeUrl } from './runPage.js';
import { highlightCss, machineSvg, pathTaken } from './stateCharts.js';
import { durationBetween, relativeTime, timeAgo } from './time.js';
import { STATE_WORDS, timelineList } from './timelineView.js';

export interface PrPageOptions {
  /** Whether the session's token may act on PRs (scope write or wider). */
  canWrite: boolean;
}

/** The runs that tested the PR, from its timeline, oldest first (those since pruned are left out). */
function runsOf(engine: Engine, queue: QueueRecord, timeline: readonly TimelineEntry[]): TestRunDetails[] {
  const ids = [...new Set(timeline.flatMap((entry) => (entry.runId === undefined ? [] : [entry.runId])))];
  return ids.flatMap((runId) => {
    try {
      return [engine.getTestRun(keyOf(queue), runId)];
    } catch {
      return [];
    }
  });
}

/** When it should merge (median, and by when 9 times in 10), or, with no estimate, how long it has been in. */
function whenItMerges(
  pr: PullRequestRecord,
  estimate: { at: number; p90: number } | undefined,
  submittedAt: string | null,
  now: number,
): Html {
  if (hasPullRequestTag(pr.state, 'merged'))
    return html`<dt>Merged</dt><dd>${timeAgo(pr.stateChangedAt, now)}, after ${durationBetween(submittedAt, pr.stateChangedAt, now)} in the queue</dd>`;
  if (!isEnqueued(pr.state))
    return html`<dt>Left the queue</dt><dd>${timeAgo(pr.stateChangedAt, now)}, after ${durationBetween(submittedAt, pr.stateChangedAt, now)} in it</dd>`;
  const inQueue = html`<dt>In the queue for</dt><dd data-field="in-queue">${durationBetween(submittedAt, null, now)}</dd>`;
  if (estimate === undefined) return inQueue;
  return html`${inQueue}<dt>Should merge</dt><dd data-field="estimate">${relativeTime(estimate.at, now)} <span class="muted">(9 times in 10 ${relativeTime(estimate.p90, now)})</span></dd>`;
}

function hostLinks(engine: Engine, queue: QueueRecord, pr: PullRequestRecord, runs: readonly TestRunDetails[]): Html {
  const prUrl = engine.gitHost.pullRequestUrl?.(queue.repo, pr.number);
  const latest = runs.at(-1)?.run;
  const checks = (latest?.statusChecks ?? []).filter((check) => safeUrl(check.url));
  return html`<dt>On the host</dt><dd data-field="host-links">${
    prUrl !== undefined && safeUrl(prUrl)
      ? html`<a href="${prUrl}" rel="noreferrer">#${pr.number} on ${queue.repo.host}</a>`
      : html`<span class="muted">${engine.gitHost.name} has no page of its own for PRs: this is its page</span>`
  }${checks.map((check) => html` · <a href="${check.url}" rel="noreferrer">CI: ${check.context} (${check.state})</a>`)}</dd>`;
}

export function prBody(engine: Engine, queue: QueueRecord, number: number, options: PrPageOptions): Html {
  const key = keyOf(queue);
  const { pr, timeline = [] } = engine.getSubmittedPullRequest(key, number, true);
  const now = engine.clock.now();
  const entry = timeline.filter((line) => line.entryId === pr.id);
  const submittedAt = entry[0]?.at ?? null;
  const runs = runsOf(engine, queue, timeline);
  const path = pathTaken(timeline, pr.state);
  const position = queue.runtime.lineup.indexOf(number);
  const estimate = isEnqueued(pr.state) ? engine.estimates(key).get(number) : undefined;
  const prPath = `${queuePath(queue)}/prs/${number}`;
  return html`<p><a href="${queuePath(queue)}">${queueName(queue)}</a> · <span data-field="title">${pr.title || '(title not known yet)'}</span> by ${pr.author || 'someone'}${pr.sha === '' ? '' : html` · head <code>${pr.sha.slice(0, 12)}</code>`}</p>
<dl class="glance"><dt>State</dt><dd><span class="state state-${pr.state}" data-field="pr-state" data-state="${pr.state}">${STATE_WORDS[pr.state]}</span>${pr.reason === null ? '' : html` <span data-field="reason">${pr.reason}</span>`}</dd>
${position >= 0 ? html`<dt>Position</dt><dd data-field="position">${position + 1} of ${queue.runtime.lineup.length}</dd>` : ''}
${whenItMerges(pr, estimate, submittedAt, now)}
${position >= 0 || hasPullRequestTag(pr.state, 'notReady') ? html`<dt>Waits for</dt><dd data-field="waits-for">${waitsFor(pr, queue)}</dd>` : ''}
<dt>Priority</dt><dd data-field="priority">${pr.priorityName}${pr.skipTheLine ? ', skipping the line' : ''}</dd>
${hostLinks(engine, queue, pr, runs)}</dl>
<h2>Actions</h2>${prActions(pr, prPath, options.canWrite)}
<h2>Path taken</h2><p class="muted">States it went through, in order: <span data-field="path">${path.map((state) => STATE_WORDS[state as keyof typeof STATE_WORDS] ?? state).join(' → ')}</span>. The current state is filled.</p>
<style>${raw(highlightCss('pr-path', [], pr.state))}
${raw(highlightCss('pr-chart', path, pr.state))}</style>
<div class="chart fit" id="pr-path">${raw(pathSvg(path))}</div>
<details class="full-chart" id="full-chart"><summary>The full state chart</summary><div class="chart" id="pr-chart" tabindex="0" role="region" aria-label="full state chart of pull requests">${raw(machineSvg('pullRequest'))}</div></details>
<h2>Timeline</h2>${timelineList(timeline, now)}
<h2>Test runs (${runs.length})</h2>${runsTable(queue, runs, now)}`;
}
