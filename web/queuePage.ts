/**
 * The queue page: state and controls, runs in progress (batches, bisection runs, lanes in parallel mode), the
 * line-up in order with what each PR waits for and when it should merge, the PRs not ready, a link to its history,
 * the "what if" panel (whatIfPanel.ts), and the settings form (outside the live region). The page is a list of sections (`QUEUE_SECTIONS`): a new panel
 * is one more function there.
 */
import type { Engine, TestRunDetails } from '../engine/engine.js';
import type { MergeEstimate } from '../engine/estimate/index.js';
import type { PullRequestRecord } from '../engine/model/pullRequests.js';
import { batchingMaxSizeOf, type QueueRecord } from '../engine/model/queues.js';
import { bisectionTree, type TreeNode } from './bisectionTree.js';
import { html, type Html } from './html.js';
import { historyPath } from './historyPage.js';
import { keyOf, queuePath } from './queueAccess.js';
import { exact, formatDurationSince, relativeTime } from './time.js';
import { hasPullRequestTag, hasQueueTag, type PullRequestTag } from '../machines/index.js';
import { whatIfPanel, type WhatIfState } from './whatIfPanel.js';

export interface QueueView {
  queue: QueueRecord;
  lineup: PullRequestRecord[];
  waiting: PullRequestRecord[];
  runs: TestRunDetails[];
  /** When each ready PR should merge (engine/estimate). */
  estimates: ReadonlyMap<number, MergeEstimate>;
  now: number;
  /** Whether the session's token may pause, resume, drain and configure the queue (scope admin). */
  canAdmin: boolean;
  /** The "what if" panel, when the service can simulate: the queue's latest comparison, if one was asked for. */
  whatIf?: { state: WhatIfState | undefined };
}

export function readQueue(engine: Engine, queue: QueueRecord, canAdmin: boolean): QueueView {
  const key = keyOf(queue);
  const { queue: fresh, enqueued } = engine.getQueue(key);
  const byNumber = new Map(enqueued.map((pr) => [pr.number, pr]));
  const pick = (numbers: number[]) => numbers.flatMap((number) => byNumber.get(number) ?? []);
  const runs = fresh.runtime.activeRuns.flatMap((runId) => {
    try {
      return [engine.getTestRun(key, runId)];
    } catch {
      return []; // ended and removed between the two reads
    }
  });
  return {
    queue: fresh,
    lineup: pick(fresh.runtime.lineup),
    waiting: pick(fresh.runtime.waiting),
    runs,
    estimates: engine.estimates(key),
    now: engine.clock.now(),
    canAdmin,
  };
}

/** What a PR is waiting for, in words. */
export function waitsFor(pr: PullRequestRecord, queue: QueueRecord): string {
  const is = (tag: PullRequestTag) => hasPullRequestTag(pr.state, tag);
  if (is('notReady')) return pr.reason ?? 'the git host to report it mergeable on the target branch';
  if (is('waiting')) {
    if (!hasQueueTag(queue.state, 'merges')) return 'the queue to be resumed';
    if (pr.bisectionId !== null)
      return `a bisection run (bisection ${pr.bisectionId}${pr.group === null ? '' : `, group ${pr.group}`})`;
    return pr.reason ?? `a free run slot (concurrency ${queue.settings.concurrency})`;
  }
  if (is('testing')) return `run ${pr.runId ?? '?'} to finish`;
  if (is('passed')) return pr.mergeRequested ? 'the git host to merge it' : 'the PRs ahead of it to merge';
  if (is('failing')) return pr.reason ?? 'runs behind it to vouch for it, or the failure to be confirmed';
  return pr.reason ?? '';
}

const prLink = (queue: QueueRecord, number: number) => html`<a href="${queuePath(queue)}/prs/${number}">#${number}</a>`;
const prList = (queue: QueueRecord, numbers: number[]) =>
  numbers.length === 0
    ? html`<span class="muted">none</span>`
    : html`${numbers.map((number, index) => html`${index > 0 ? ', ' : ''}${prLink(queue, number)}`)}`;

function runCard(queue: QueueRecord, details: TestRunDetails): Html {
  const run = details.run;
  const what = run.prs.length > 1 ? `batch of ${run.prs.length}` : 'single PR';
  return html`<article class="run ${run.kind}" data-run="${run.id}"><strong>${run.id}</strong> <span class="state state-${run.status}">${run.status}</span>
<span class="muted">${run.kind === 'bisection' ? `bisection ${run.bisectionId ?? ''}` : 'main line'} · ${what}</span>
<div>PRs: ${prList(queue, run.prs)}</div>
<div>Base: ${run.baseSha === '' ? 'target branch' : run.baseSha.slice(0, 12)}${run.basePrs.length > 0 ? html` + ${prList(queue, run.basePrs)}` : ''}</div>
${run.mode === 'parallel' ? html`<div>dependentPrs: ${prList(queue, run.basePrs)}</div>` : ''}
<div class="muted">Checks: ${run.statusChecks.length === 0 ? 'none yet' : run.statusChecks.map((check) => `${check.context} ${check.state}`).join(', ')}</div></article>`;
}

/** Parallel mode: runs that share PRs (tested or as dependencies) form one lane; independent lanes run side by side. */
export function lanesOf(runs: TestRunDetails[]): TestRunDetails[][] {
  const lanes: { prs: Set<number>; runs: TestRunDetails[] }[] = [];
  for (const details of runs) {
    const prs = new Set([...details.run.prs, ...details.run.basePrs]);
    const touching = lanes.filter((lane) => [...prs].some((number) => lane.prs.has(number)));
    const merged = { prs, runs: [details] };
    for (const lane of touching) {
      for (const number of lane.prs) merged.prs.add(number);
      merged.runs.unshift(...lane.runs);
      lanes.splice(lanes.indexOf(lane), 1);
    }
    lanes.push(merged);
  }
  return lanes.map((lane) => lane.runs);
}

function runsSection(view: QueueView): Html {
  const { queue, runs } = view;
  if (runs.length === 0) return html`<p class="muted">No run in progress.</p>`;
  const main = runs.filter((details) => details.run.kind === 'main');
  const bisections = new Map<string, TestRunDetails[]>();
  for (const details of runs.filter((candidate) => candidate.run.kind === 'bisection')) {
    const id = details.run.bisectionId ?? '?';
    bisections.set(id, [...(bisections.get(id) ?? []), details]);
  }
  const mainPart =
    queue.settings.mode === 'parallel'
      ? html`<div class="lanes">${lanesOf(main).map((lane, index) => html`<section class="lane" aria-label="lane ${index + 1}"><h3>Lane ${index + 1}</h3>${lane.map((details) => runCard(queue, details))}</section>`)}</div>`
      : html`${main.map((details) => runCard(queue, details))}`;
  const bisectionPart = [...bisections].map(
    ([id, list]) =>
      html`<section class="bisection" data-bisection="${id}"><h3>Bisection ${id}</h3>${list.map((details) => runCard(queue, details))}</section>`,
  );
  return html`${mainPart}${bisectionPart}`;
}

/** Each bisection of the line-up as a tree: the failed sets, and the groups being tested under them. */
function bisectionTrees(view: QueueView): Html {
  const bisections = new Map<string, Map<string, number[]>>();
  for (const pr of view.lineup) {
    if (pr.bisectionId === null) continue;
    const groups = bisections.get(pr.bisectionId) ?? new Map<string, number[]>();
    const group = pr.group ?? 'ungrouped';
    groups.set(group, [...(groups.get(group) ?? []), pr.number]);
    bisections.set(pr.bisectionId, groups);
  }
  if (bisections.size === 0) return html``;
  const states = new Map(view.lineup.map((pr) => [pr.number, pr.state]));
  const node = (tree: TreeNode): Html =>
    html`<li class="${tree.kind}">${tree.kind === 'failed' ? html`<span class="state state-FAILED">failed together</span> ` : html`<span class="group-name">Group ${tree.name ?? ''}</span> `}${tree.prs.map(
      (number, index) =>
        html`${index > 0 ? ', ' : ''}${prLink(view.queue, number)}${tree.kind === 'group' && states.has(number) ? html` <span class="state state-${states.get(number)!}">${states.get(number)!}</span>` : ''}`,
    )}${tree.children.length === 0 ? '' : html`<ul>${tree.children.map(node)}</ul>`}</li>`;
  return html`<h2>Bisections</h2>${[...bisections].map(([id, groups]) => {
    const memory = view.queue.runtime.bisections[id];
    const failedSets = Array.isArray(memory?.failed)
      ? memory.failed.flatMap((entry) => (Array.isArray(entry.prs) ? [entry.prs] : []))
      : [];
    return html`<section class="run bisection" data-bisection-tree="${id}"><h3>Bisection ${id}</h3><ul class="tree">${bisectionTree(failedSets, groups).map(node)}</ul></section>`;
  })}`;
}

function stateButton(queue: QueueRecord, state: 'running' | 'paused' | 'draining', label: string): Html {
  return html`<form method="post" action="${queuePath(queue)}/state"><input type="hidden" name="state" value="${state}"><button type="submit"${queue.state === state ? html` disabled` : ''}>${label}</button></form>`;
}

function estimateCell(view: QueueView, number: number): Html {
  const estimate = view.estimates.get(number);
  if (estimate === undefined) return html`<span class="muted">—</span>`;
  return relativeTime(estimate.at, view.now, `${exact(estimate.at)}; 9 times in 10 by ${exact(estimate.p90)}`);
}

function lineupRows(view: QueueView): Html {
  const { queue } = view;
  return html`${view.lineup.map(
    (
      pr,
      index,
    ) => html`<tr data-pr="${pr.number}"><td>${index + 1}</td><td>${prLink(queue, pr.number)}</td><td>${pr.title}</td>
<td><span class="state state-${pr.state}">${pr.state}</span></td><td>${pr.priorityName}${pr.skipTheLine ? ', skips the line' : ''}</td><td>${formatDurationSince(pr.readyAt, view.now)}</td><td>${estimateCell(view, pr.number)}</td><td>${waitsFor(pr, queue)}</td></tr>`,
  )}`;
}

/** The queue's state, and the controls a token of scope admin has. */
function stateSection(view: QueueView): Html {
  const { queue } = view;
  return html`<p>State <span class="state state-${queue.state}" data-field="queue-state">${queue.state}</span> · ${queue.settings.mode} mode · concurrency ${queue.settings.concurrency}${queue.settings.batch ? ` · batches of ${queue.settings.batchingMinSize} to ${batchingMaxSizeOf(queue)}` : ''} · <a href="${historyPath(queue)}">History of ended PRs</a></p>
${view.canAdmin ? html`<div class="controls">${stateButton(queue, 'paused', 'Pause')}${stateButton(queue, 'running', 'Resume')}${stateButton(queue, 'draining', 'Drain')}</div>` : html`<p class="muted">This token may not pause, drain or configure the queue (that needs scope admin).</p>`}`;
}

function runsInProgress(view: QueueView): Html {
  return html`<h2>Runs in progress (${view.runs.length})</h2>${runsSection(view)}`;
}

function lineupSection(view: QueueView): Html {
  return html`<h2>Line-up (${view.lineup.length})</h2>
${view.lineup.length === 0 ? html`<p class="muted">No PR in the line-up.</p>` : html`<div class="scroll" tabindex="0" role="region" aria-label="line-up"><table class="lineup"><thead><tr><th scope="col">Position</th><th scope="col">PR</th><th scope="col">Title</th><th scope="col">State</th><th scope="col">Priority</th><th scope="col">Ready for</th><th scope="col">Should merge</th><th scope="col">Waits for</th></tr></thead><tbody>${lineupRows(view)}</tbody></table></div>`}`;
}

function notReadySection(view: QueueView): Html {
  const { queue } = view;
  return html`<h2>Not ready (${view.waiting.length})</h2>
${view.waiting.length === 0 ? html`<p class="muted">None.</p>` : html`<ul>${view.waiting.map((pr) => html`<li>${prLink(queue, pr.number)} ${pr.title}: ${waitsFor(pr, queue)}</li>`)}</ul>`}`;
}

function whatIfSection(view: QueueView): Html {
  return view.whatIf === undefined ? html`` : whatIfPanel(view.queue, view.whatIf.state, view.now, view.canAdmin);
}

/** The queue page's sections, in order: each draws one part of the live region from the view. */
export const QUEUE_SECTIONS: readonly ((view: QueueView) => Html)[] = [
  stateSection,
  runsInProgress,
  bisectionTrees,
  lineupSection,
  notReadySection,
  whatIfSection,
];

export function queueBody(view: QueueView): Html {
  return html`${QUEUE_SECTIONS.map((section) => section(view))}`;
}
