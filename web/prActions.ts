/**
 * What a person may do to a PR from its page: cancel it (irreversible: asked again before it is done), restart its
 * tests, set its priority, let it skip the line or not. Each is a form posting to the dashboard (api/dashboardPr.ts),
 * which checks the token's scope and calls the same procedure as the API. A token that may not write sees none.
 */
import type { PullRequestRecord } from '../engine/model/pullRequests.js';
import { PRIORITIES } from '../engine/transaction/moves.js';
import { isEnqueued } from '../machines/vocabulary.js';
import { html, type Html } from './html.js';

export const PR_ACTIONS = ['cancel', 'retest', 'priority', 'skip-the-line'] as const;
export type PrAction = (typeof PR_ACTIONS)[number];

/** The action forms for a PR, or why there are none. `prPath` is the PR page's address. */
export function prActions(pr: PullRequestRecord, prPath: string, canWrite: boolean): Html {
  if (!canWrite)
    return html`<p class="muted" data-field="actions">This token may only read: acting on a PR needs a token of scope write.</p>`;
  if (!isEnqueued(pr.state))
    return html`<p class="muted" data-field="actions">It is no longer in the queue: submit it again to act on it.</p>`;
  if (pr.mergeRequested)
    return html`<p class="muted" data-field="actions">It is being merged: it can no longer be cancelled or retested.</p>`;
  const options = Object.keys(PRIORITIES).map(
    (name) => html`<option value="${name}"${pr.priorityName === name ? html` selected` : ''}>${name}</option>`,
  );
  return html`<div class="actions" data-field="actions">
<form method="post" action="${prPath}/retest"><button type="submit">Restart tests</button></form>
<form method="post" action="${prPath}/priority" class="inline-field"><label>Priority <select name="priority">${options}</select></label> <button type="submit">Set priority</button></form>
<form method="post" action="${prPath}/skip-the-line"><input type="hidden" name="skipTheLine" value="${pr.skipTheLine ? 'false' : 'true'}"><button type="submit">${pr.skipTheLine ? 'Stop skipping the line' : 'Skip the line'}</button></form>
<details class="confirm" id="confirm-cancel"><summary>Cancel…</summary><form method="post" action="${prPath}/cancel"><p>Cancel #${pr.number}? It leaves the queue and its run is stopped; it comes back only if submitted again.</p><button type="submit" class="danger">Yes, cancel #${pr.number}</button></form></details>
</div>`;
}
