/**
 * The lifecycle machines drawn as `greenline charts` draws them (Mermaid text from the machine definitions, rendered
 * by beautiful-mermaid), made fit for a page: no web font is fetched, the drawing has an accessible name, and states
 * and transitions can be highlighted by CSS (beautiful-mermaid marks nodes with data-id and edges with
 * data-from / data-to).
 */
import { renderMermaidSVG } from 'beautiful-mermaid';
import { MACHINES } from '../machines/index.js';
import { toMermaid } from '../machines/mermaid.js';
import type { PullRequestState } from '../machines/vocabulary.js';
import type { TimelineEntry } from '../engine/model/pullRequests.js';
import { escapeHtml } from './html.js';

export type MachineName = keyof typeof MACHINES;
export const MACHINE_NAMES = Object.keys(MACHINES) as MachineName[];

const cache = new Map<MachineName, string>();

export function machineSvg(name: MachineName): string {
  let svg = cache.get(name);
  if (svg === undefined) {
    svg = renderMermaidSVG(toMermaid(MACHINES[name]))
      .replace(/^\s*@import url\([^)]*\);\s*$/m, '')
      .replace('<svg ', `<svg role="img" aria-label="${escapeHtml(`state chart of the ${name} machine`)}" `);
    cache.set(name, svg);
  }
  return svg;
}

const cssString = (text: string) => `"${text.replace(/["\\]/g, '\\$&')}"`;

/** CSS, scoped to the element `#scope`, that marks the states and transitions taken and the current state. */
export function highlightCss(scope: string, path: string[], current: string | undefined): string {
  const rules: string[] = [];
  for (const state of new Set(path)) {
    rules.push(`#${scope} [data-id=${cssString(state)}] rect { stroke: #0b6e4f; stroke-width: 2.5px; }`);
  }
  for (let index = 1; index < path.length; index++) {
    const edge = `[data-from=${cssString(path[index - 1]!)}][data-to=${cssString(path[index]!)}]`;
    rules.push(`#${scope} polyline${edge} { stroke: #0b6e4f; stroke-width: 3px; }`);
    rules.push(`#${scope} g${edge} rect { stroke: #0b6e4f; stroke-width: 2px; }`);
  }
  if (current !== undefined) {
    rules.push(`#${scope} [data-id=${cssString(current)}] rect { fill: #ffd33d; stroke: #7a4d00; stroke-width: 3px; }`);
  }
  return rules.join('\n');
}

/** The PR state each timeline event leaves it in; events that do not move it are absent. */
const STATE_AFTER: Record<string, PullRequestState> = {
  submitted: 'NOT_READY',
  not_ready: 'NOT_READY',
  ready: 'PENDING',
  testing: 'TESTING',
  passed: 'TESTS_PASSED',
  pending_failure: 'PENDING_FAILURE',
  requeued: 'PENDING',
  bisecting: 'PENDING',
  rescued: 'PENDING',
  failed: 'FAILED',
  cancelled: 'CANCELLED',
  merged: 'MERGED',
};

/**
 * The states a PR went through, from its timeline (consecutive repeats dropped), ending in its current state. Only
 * its last queue entry counts: a PR submitted again after it left starts a new path.
 */
export function pathTaken(timeline: TimelineEntry[], current: PullRequestState): string[] {
  let path: string[] = [];
  for (const entry of timeline) {
    const state = STATE_AFTER[entry.event];
    if (state === undefined) continue;
    if (entry.event === 'submitted') path = [];
    if (path.at(-1) !== state) path.push(state);
  }
  if (path.at(-1) !== current) path.push(current);
  return path;
}
