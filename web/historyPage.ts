/**
 * A queue's history: its ended PRs (merged, failed, cancelled), newest first, with why they ended, how long they were
 * in the queue and the runs that tested them; searchable by number, title and author; a page at a time (the index of
 * ended PRs: engine/history/endedIndex.ts).
 */
import type { EndedPullRequest, HistoryPage } from '../engine/history/endedIndex.js';
import type { QueueRecord } from '../engine/model/queues.js';
import { html, type Html } from './html.js';
import { queueName, queuePath } from './queueAccess.js';
import { runPath } from './runPage.js';
import { durationBetween, timeAgo } from './time.js';
import { STATE_WORDS } from './timelineView.js';

export const HISTORY_PAGE_SIZE = 50;

export const historyPath = (queue: QueueRecord) => `${queuePath(queue)}/history`;

function row(queue: QueueRecord, entry: EndedPullRequest, now: number): Html {
  return html`<tr data-pr="${entry.number}"><td><a href="${queuePath(queue)}/prs/${entry.number}">#${entry.number}</a></td><td>${entry.title}</td><td>${entry.author}</td>
<td><span class="state state-${entry.state}">${STATE_WORDS[entry.state]}</span></td><td>${entry.reason ?? ''}</td>
<td>${durationBetween(entry.submittedAt, entry.endedAt, now)}</td><td>${timeAgo(entry.endedAt, now)}</td>
<td>${entry.runIds.length === 0 ? html`<span class="muted">none</span>` : entry.runIds.map((runId, index) => html`${index > 0 ? ', ' : ''}<a href="${runPath(queue, runId)}">${runId}</a>`)}</td></tr>`;
}

export function historyBody(
  queue: QueueRecord,
  page: HistoryPage,
  query: { search: string; after: string },
  now: number,
): Html {
  const search = query.search;
  const newer =
    query.after === ''
      ? ''
      : html`<a href="${historyPath(queue)}${search === '' ? '' : `?q=${encodeURIComponent(search)}`}">Newest</a>`;
  const older =
    page.next === undefined
      ? ''
      : html`<a href="${historyPath(queue)}?${new URLSearchParams({ ...(search === '' ? {} : { q: search }), after: page.next }).toString()}" rel="next">${page.searchedBack === undefined ? 'Older' : 'Search older'}</a>`;
  // A search stops after a bounded part of the index (endedIndex.ts): the page says how far back it looked.
  const searched =
    page.searchedBack === undefined
      ? ''
      : html`<p class="muted" data-field="history-searched-back">Searched back to the PRs that ended ${timeAgo(page.searchedBack, now)}; “Search older” goes on from there.</p>`;
  return html`<p><a href="${queuePath(queue)}">Back to ${queueName(queue)}</a></p>
<form method="get" action="${historyPath(queue)}" role="search" class="filters"><label>Number, title or author <input type="search" name="q" value="${search}"></label> <button type="submit">Search</button></form>
${searched}
${
  page.rows.length === 0
    ? html`<p class="muted" data-field="history-empty">${search === '' ? 'No PR has left this queue yet (or they were pruned by retention).' : page.searchedBack === undefined ? `No ended PR matches “${search}”.` : `No PR that ended since then matches “${search}”.`}</p>`
    : html`<div class="scroll" tabindex="0" role="region" aria-label="ended pull requests"><table class="history"><thead><tr><th scope="col">PR</th><th scope="col">Title</th><th scope="col">Author</th><th scope="col">Outcome</th><th scope="col">Why</th><th scope="col">In the queue</th><th scope="col">Ended</th><th scope="col">Runs</th></tr></thead><tbody>${page.rows.map((entry) => row(queue, entry, now))}</tbody></table></div>`
}
<nav class="pager" aria-label="history pages">${newer}${older}</nav>`;
}
