/** The PR page: where it stands, its state chart with the path it took, its timeline and its test runs. */
import type { Engine, TestRunDetails } from '../engine/engine.js';
import type { QueueRecord } from '../engine/model/queues.js';
import { html, raw, type Html } from './html.js';
import { keyOf, queueName, queuePath } from './queueAccess.js';
import { waitsFor } from './queuePage.js';
import { highlightCss, machineSvg, pathTaken } from './stateCharts.js';
import { hasPullRequestTag } from '../machines/index.js';

const safeUrl = (url: string) => /^https?:\/\//i.test(url);

function runSection(queue: QueueRecord, details: TestRunDetails): Html {
  const run = details.run;
  return html`<article class="run ${run.kind}" data-run="${run.id}"><h3>${run.id} <span class="state state-${run.status}">${run.status}</span></h3>
<p class="muted">${run.kind === 'bisection' ? `bisection ${run.bisectionId ?? ''}` : 'main line'} · tested ${run.prs.map((number) => `#${number}`).join(', ')}${run.basePrs.length > 0 ? ` on top of ${run.basePrs.map((number) => `#${number}`).join(', ')}` : ''} · branch ${run.testBranch}${run.testBranchSha === '' ? '' : ` at ${run.testBranchSha.slice(0, 12)}`}${run.reason === null ? '' : ` · ${run.reason}`}</p>
${
  run.statusChecks.length === 0
    ? html`<p class="muted">No status check yet (required: ${run.requiredStatuses.join(', ') || 'none'}).</p>`
    : html`<div class="scroll" tabindex="0" role="region" aria-label="status checks of ${run.id}"><table><thead><tr><th scope="col">Check</th><th scope="col">State</th><th scope="col">Description</th><th scope="col">Link</th></tr></thead><tbody>${run.statusChecks.map(
        (check) =>
          html`<tr><td>${check.context}</td><td><span class="state state-${check.state}">${check.state}</span></td><td>${check.description}</td><td>${safeUrl(check.url) ? html`<a href="${check.url}" rel="noreferrer">details<span class="visually-hidden"> of ${check.context}</span></a>` : check.url}</td></tr>`,
      )}</tbody></table></div>`
}
<p><a href="${queuePath(queue)}/runs/${run.id}">Run page</a></p></article>`;
}

export function prBody(engine: Engine, queue: QueueRecord, number: number): Html {
  const key = keyOf(queue);
  const { pr, timeline = [] } = engine.getSubmittedPullRequest(key, number, true);
  const runIds = [...new Set(timeline.flatMap((entry) => (entry.runId === undefined ? [] : [entry.runId])))];
  const runs = runIds.flatMap((runId) => {
    try {
      return [engine.getTestRun(key, runId)];
    } catch {
      return [];
    }
  });
  const path = pathTaken(timeline, pr.state);
  const position = queue.runtime.lineup.indexOf(number);
  return html`<p><a href="${queuePath(queue)}">${queueName(queue)}</a> · ${pr.title} by ${pr.author} · head ${pr.sha.slice(0, 12)}</p>
<p>State <span class="state state-${pr.state}" data-field="pr-state">${pr.state}</span>${position >= 0 ? ` · position ${position + 1}` : ''} · priority ${pr.priorityName} (${pr.priorityValue})${pr.reason === null ? '' : ` · ${pr.reason}`}</p>
${position >= 0 || hasPullRequestTag(pr.state, 'notReady') ? html`<p>Waits for: ${waitsFor(pr, queue)}</p>` : ''}
<h2>State chart</h2><p class="muted">Path taken: <span data-field="path">${path.join(' → ')}</span>; the current state is filled.</p>
<style>${raw(highlightCss('pr-chart', path, pr.state))}</style>
<div class="chart" id="pr-chart" tabindex="0" role="region" aria-label="state chart of this pull request">${raw(machineSvg('pullRequest'))}</div>
<h2>Timeline</h2><ol class="timeline">${timeline.map((entry) => html`<li><time datetime="${entry.at}">${entry.at.replace('T', ' ').replace(/\.\d+Z$/, 'Z')}</time> <strong>${entry.event}</strong> ${entry.message}</li>`)}</ol>
<h2>Test runs (${runs.length})</h2>${runs.length === 0 ? html`<p class="muted">Not tested yet.</p>` : runs.map((details) => runSection(queue, details))}`;
}

export function runBody(engine: Engine, queue: QueueRecord, runId: string): Html {
  return runSection(queue, engine.getTestRun(keyOf(queue), runId));
}
