/**
 * A PR's timeline in plain words: each stored line (its `event` and the engine's message, model/texts.ts) as a short
 * headline and a sentence, the engine's arithmetic (the likelihood's features and weights) kept out of the sentence and
 * shown on demand; times relative to now, exact on hover.
 */
import type { TimelineEntry } from '../engine/model/pullRequests.js';
import type { PullRequestState } from '../machines/vocabulary.js';
import { html, type Html } from './html.js';
import { timeAgo } from './time.js';

/** Each state in words, for the PR page's headline, its chart and the history. */
export const STATE_WORDS: Record<PullRequestState, string> = {
  NOT_READY: 'Not ready',
  PENDING: 'Waiting in line',
  TESTING: 'Testing',
  TESTS_PASSED: 'Tests passed',
  PENDING_FAILURE: 'Failure being confirmed',
  FAILED: 'Failed',
  CANCELLED: 'Cancelled',
  MERGED: 'Merged',
};

const HEADLINES: Record<string, string> = {
  submitted: 'Submitted',
  resubmitted: 'Submitted again',
  restarted: 'Restart asked',
  quarantine_passed: 'Quarantined failure let through',
  not_ready: 'Not ready',
  impacted_targets: 'Impacted targets uploaded',
  ready: 'Ready',
  testing: 'Testing',
  passed: 'Tests passed',
  pending_failure: 'Tests failed',
  retesting: 'Testing again',
  bisecting: 'Bisecting',
  rescued: 'Found good',
  requeued: 'Back in line',
  failed: 'Removed: failed',
  cancelled: 'Cancelled',
  merging: 'Merging',
  merged: 'Merged',
  merge_failed: 'Merge refused',
  head_pushed: 'New commits',
  speculating: 'Tested alone first',
  comment: 'Comment on the host',
  status_check: 'Status check on the host',
};

export interface PlainLine {
  headline: string;
  sentence: string;
  /** The engine's own account, when the sentence leaves part of it out. */
  detail?: string;
}

const LIKELIHOOD = /failure likelihood (\d+(?:\.\d+)?)%/;

/** The stored line in words; an event this page does not know keeps its message as it is. */
export function plainLine(entry: TimelineEntry): PlainLine {
  const headline = HEADLINES[entry.event] ?? entry.event.replace(/_/g, ' ');
  const message = entry.message;
  const cut = message.indexOf('; failure likelihood');
  if ((entry.event === 'ready' || entry.event === 'pending_failure') && cut >= 0) {
    const likelihood = LIKELIHOOD.exec(message)?.[1];
    const sentence = entry.event === 'ready' ? message.slice(0, cut).replace(/^ready: /, '') : message.slice(0, cut);
    return {
      headline,
      sentence: `${capitalize(sentence)}.${likelihood === undefined ? '' : ` Chance it fails: ${Math.round(Number(likelihood))}%.`}`,
      detail: message.slice(cut + 2),
    };
  }
  if (entry.event === 'speculating') {
    const likelihood = LIKELIHOOD.exec(message)?.[1];
    return {
      headline,
      sentence: `It looked likely to fail (${Math.round(Number(likelihood ?? 0))}%), so it is tested on its own first and the PRs around it go on without it.`,
      detail: message,
    };
  }
  return { headline, sentence: `${capitalize(message)}${/[.!?]$/.test(message) || message === '' ? '' : '.'}` };
}

const capitalize = (text: string) => (text === '' ? text : text[0]!.toUpperCase() + text.slice(1));

/** The timeline, newest last, each line with its time relative to `now`. */
export function timelineList(entries: readonly TimelineEntry[], now: number): Html {
  if (entries.length === 0) return html`<p class="muted">Nothing yet.</p>`;
  return html`<ol class="timeline">${entries.map((entry) => {
    const line = plainLine(entry);
    return html`<li data-event="${entry.event}">${timeAgo(entry.at, now)} <strong>${line.headline}</strong> <span>${line.sentence}</span>${
      line.detail === undefined
        ? ''
        : html` <details class="detail"><summary>How this was estimated</summary><p>${line.detail}</p></details>`
    }</li>`;
  })}</ol>`;
}
