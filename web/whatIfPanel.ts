/**
 * The queue page's "what if" panel (issue 35): the queue's own workload, fitted from its history as
 * `greenline sim --from-queue` fits it, simulated under the current settings and under the recommender's pick
 * (`--recommend`). A simulation takes a while: it runs on demand (the panel's button), outside the service's process,
 * one at a time (api/dashboardWhatIf.ts); the page shows it waiting or running, then its figures, redrawn live.
 * The figures' shapes are declared here: web/ reaches nothing of sim/ (the layering), the runner maps them.
 */
import { html, type Html } from './html.js';
import { queuePath } from './queueAccess.js';
import { relativeTime } from './time.js';
import type { QueueRecord } from '../engine/model/queues.js';

/** One configuration's simulated figures (minutes, per hour). */
export interface WhatIfFigures {
  submitted: number;
  merged: number;
  mergedPerHour: number;
  p50Minutes: number | null;
  p90Minutes: number | null;
  ciRunsPerMerged: number | null;
  ciMinutes: number;
}

/** A fitted figure of the workload, with its 95 % interval. */
export interface WhatIfFitted {
  name: string;
  unit: string;
  value: number;
  low: number;
  high: number;
}

export interface WhatIfResult {
  current: WhatIfFigures;
  pick: WhatIfFigures;
  /** The pick in words ("single mode, concurrency 4, batches 4/10min, …"). */
  pickDescription: string;
  /** The settings the pick changes, as `updateQueue` takes them. */
  pickSettings: Record<string, unknown>;
  fitted: WhatIfFitted[];
  simulatedHours: number;
}

export type WhatIfState =
  | { status: 'waiting'; since: number }
  | { status: 'running'; since: number }
  | { status: 'done'; at: number; result: WhatIfResult }
  | { status: 'failed'; at: number; message: string };

export const whatIfPath = (queue: QueueRecord) => `${queuePath(queue)}/what-if`;

const number = (value: number | null, digits = 1) =>
  value === null || !Number.isFinite(value) ? '—' : value.toFixed(digits);

function ratio(current: number | null, pick: number | null): string {
  if (current === null || pick === null || !Number.isFinite(current) || !Number.isFinite(pick) || current === 0)
    return '—';
  return `${(pick / current).toFixed(2)}×`;
}

const ROWS: { label: string; of: (figures: WhatIfFigures) => number | null; digits?: number }[] = [
  { label: 'P50 time to merge (min)', of: (figures) => figures.p50Minutes },
  { label: 'P90 time to merge (min)', of: (figures) => figures.p90Minutes },
  { label: 'Merges per hour', of: (figures) => figures.mergedPerHour, digits: 2 },
  { label: 'CI runs per merge', of: (figures) => figures.ciRunsPerMerged, digits: 2 },
  { label: 'CI minutes', of: (figures) => figures.ciMinutes, digits: 0 },
  { label: 'PRs merged of those submitted', of: (figures) => figures.merged, digits: 0 },
];

function comparison(result: WhatIfResult): Html {
  const settings = Object.entries(result.pickSettings)
    .map(([key, value]) => `${key}=${String(value)}`)
    .join(', ');
  return html`<div class="scroll" tabindex="0" role="region" aria-label="current settings against the recommended ones"><table class="what-if"><thead><tr><th scope="col">On the fitted workload (${number(result.simulatedHours, 0)} h simulated)</th><th scope="col">Current settings</th><th scope="col">Recommended</th><th scope="col">Recommended ÷ current</th></tr></thead><tbody>${ROWS.map(
    (row) =>
      html`<tr data-figure="${row.label}"><th scope="row">${row.label}</th><td>${number(row.of(result.current), row.digits)}${row.label.startsWith('PRs merged') ? ` of ${result.current.submitted}` : ''}</td><td>${number(row.of(result.pick), row.digits)}${row.label.startsWith('PRs merged') ? ` of ${result.pick.submitted}` : ''}</td><td>${ratio(row.of(result.current), row.of(result.pick))}</td></tr>`,
  )}</tbody></table></div>
<p>Recommended: <span data-field="what-if-pick">${result.pickDescription}</span>${settings === '' ? '' : html` <span class="muted">(settings: <code>${settings}</code>)</span>`}</p>
<details id="what-if-fit"><summary>The workload fitted from this queue's history</summary><ul>${result.fitted.map(
    (figure) =>
      html`<li>${figure.name}: ${number(figure.value, 2)}${figure.unit === '' ? '' : ` ${figure.unit}`} <span class="muted">(95 % interval ${number(figure.low, 2)} to ${number(figure.high, 2)})</span></li>`,
  )}</ul></details>`;
}

/**
 * The panel, for a queue whose service can simulate (`state` undefined: never asked since the service started). Only
 * a token that may change the settings (admin) has the button: a comparison is about them, and costs minutes of CPU.
 */
export function whatIfPanel(queue: QueueRecord, state: WhatIfState | undefined, now: number, canAsk: boolean): Html {
  const button = (label: string) =>
    canAsk
      ? html`<form method="post" action="${whatIfPath(queue)}"><button type="submit">${label}</button></form>`
      : html``;
  const intro = html`<p class="muted">This queue's own workload, fitted from its history (as <code>greenline sim --from-queue</code> does), simulated with the current settings and with the recommender's pick (<code>--recommend</code>).</p>`;
  let body: Html;
  if (state === undefined)
    body = canAsk
      ? button('Compare with the recommended settings')
      : html`<p class="muted">Not simulated yet (that needs a token of scope admin).</p>`;
  else if (state.status === 'waiting')
    body = html`<p data-field="what-if-status">Waiting for another simulation to end (asked ${relativeTime(state.since, now)}).</p>`;
  else if (state.status === 'running')
    body = html`<p data-field="what-if-status">Fitting and simulating, since ${relativeTime(state.since, now)}: this page shows the figures when they are ready.</p>`;
  else if (state.status === 'failed')
    body = html`<div class="error" role="alert" data-field="what-if-status"><p>No comparison (${relativeTime(state.at, now)}): ${state.message}</p></div>${button('Try again')}`;
  else
    body = html`<p data-field="what-if-status">Simulated ${relativeTime(state.at, now)}, on the history up to then.</p>${comparison(state.result)}${button('Simulate again')}`;
  return html`<section class="what-if" aria-labelledby="what-if-title"><h2 id="what-if-title">What if: the recommended settings</h2>${intro}${body}</section>`;
}
