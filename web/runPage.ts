/**
 * A test run: its outcome and duration, the PRs it tests (and those of its base), the base it was built on, the
 * checks CI reported with their links. Used whole on the run page, and as a row in a PR's list of runs.
 */
import type { TestRunDetails } from '../engine/engine.js';
import type { QueueRecord } from '../engine/model/queues.js';
import type { TestRunRecord } from '../engine/model/testRuns.js';
import { html, type Html } from './html.js';
import { queuePath } from './queueAccess.js';
import { durationBetween, timeAgo } from './time.js';

export const safeUrl = (url: string) => /^https?:\/\//i.test(url);

const OUTCOME: Record<string, string> = {
  in_progress: 'in progress',
  succeeded: 'passed',
  failed: 'failed',
  cancelled: 'cancelled',
};
export const outcomeOf = (run: TestRunRecord) => OUTCOME[run.status] ?? run.status;
export const runPath = (queue: QueueRecord, runId: string) => `${queuePath(queue)}/runs/${encodeURIComponent(runId)}`;

function prRefs(queue: QueueRecord, numbers: readonly number[], titles?: Map<number, string>): Html {
  if (numbers.length === 0) return html`<span class="muted">none</span>`;
  return html`<ul class="prs">${numbers.map((number) => html`<li><a href="${queuePath(queue)}/prs/${number}">#${number}</a>${titles?.get(number) ? html` ${titles.get(number)}` : ''}</li>`)}</ul>`;
}

export function checksTable(run: TestRunRecord, now: number): Html {
  if (run.statusChecks.length === 0)
    return html`<p class="muted">No check reported yet (required: ${run.requiredStatuses.join(', ') || 'none'}).</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="checks of run ${run.id}"><table class="checks"><thead><tr><th scope="col">Check</th><th scope="col">Result</th><th scope="col">Description</th><th scope="col">Reported</th></tr></thead><tbody>${run.statusChecks.map(
    (check) =>
      html`<tr data-check="${check.context}"><td>${safeUrl(check.url) ? html`<a href="${check.url}" rel="noreferrer">${check.context}</a>` : check.context}</td><td><span class="state state-${check.state}">${check.state}</span></td><td>${check.description}</td><td>${timeAgo(check.updatedAt, now)}</td></tr>`,
  )}</tbody></table></div>`;
}

/** The run page's body. */
export function runBody(queue: QueueRecord, details: TestRunDetails, now: number): Html {
  const run = details.run;
  return html`<p><a href="${queuePath(queue)}">Back to the queue</a></p>
<dl class="glance"><dt>Outcome</dt><dd><span class="state state-${run.status}" data-field="run-status">${outcomeOf(run)}</span>${run.reason === null ? '' : html` <span class="muted">${run.reason}</span>`}</dd>
<dt>Duration</dt><dd data-field="run-duration">${durationBetween(run.createdAt, run.endedAt, now)}${run.endedAt === null ? ' so far' : ''}</dd>
<dt>Started</dt><dd>${timeAgo(run.createdAt, now)}</dd>
<dt>Kind</dt><dd>${run.kind === 'bisection' ? `bisection ${run.bisectionId ?? ''}` : 'main line'}${run.prs.length > 1 ? `, a batch of ${run.prs.length}` : ''}</dd>
<dt>Base</dt><dd data-field="run-base">${run.baseSha === '' ? 'the target branch' : html`the target branch at <code>${run.baseSha.slice(0, 12)}</code>`}${run.basePrs.length > 0 ? html`, with the PRs ahead of it: ${prRefs(queue, run.basePrs)}` : ''}</dd>
<dt>Test branch</dt><dd><code>${run.testBranch}</code>${run.testBranchSha === '' ? '' : html` at <code>${run.testBranchSha.slice(0, 12)}</code>`}</dd></dl>
<h2>Pull requests tested (${run.prs.length})</h2>${prRefs(queue, run.prs, details.titles)}
<h2>Checks</h2>${checksTable(run, now)}`;
}

/** A PR's runs, newest first, one row each. */
export function runsTable(queue: QueueRecord, runs: readonly TestRunDetails[], now: number): Html {
  if (runs.length === 0) return html`<p class="muted">Not tested yet.</p>`;
  return html`<div class="scroll" tabindex="0" role="region" aria-label="test runs"><table class="runs"><thead><tr><th scope="col">Run</th><th scope="col">Outcome</th><th scope="col">Duration</th><th scope="col">Started</th><th scope="col">Tested with</th><th scope="col">Checks</th></tr></thead><tbody>${[
    ...runs,
  ]
    .reverse()
    .map(
      ({ run }) =>
        html`<tr class="run-row" data-run="${run.id}"><td><a href="${runPath(queue, run.id)}">${run.id}</a></td><td><span class="state state-${run.status}">${outcomeOf(run)}</span></td><td>${durationBetween(run.createdAt, run.endedAt, now)}</td><td>${timeAgo(run.createdAt, now)}</td><td>${run.prs.length > 1 ? run.prs.map((number) => `#${number}`).join(', ') : 'alone'}</td><td>${
          run.statusChecks.length === 0
            ? html`<span class="muted">none yet</span>`
            : run.statusChecks.map(
                (check, index) =>
                  html`${index > 0 ? ', ' : ''}${safeUrl(check.url) ? html`<a href="${check.url}" rel="noreferrer">${check.context}</a>` : check.context} ${check.state}`,
              )
        }</td></tr>`,
    )}</tbody></table></div>`;
}
