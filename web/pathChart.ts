/**
 * The path a PR took, drawn small enough to read in its box: only the states it went through, top to bottom, each
 * move an edge in the order taken, the current state filled (stateCharts.ts highlights it). The machine's full chart
 * stays on the page, behind a disclosure.
 */
import { renderMermaidSVG } from 'beautiful-mermaid';
import type { PullRequestState } from '../machines/vocabulary.js';
import { escapeHtml } from './html.js';
import { STATE_WORDS } from './timelineView.js';

const cache = new Map<string, string>();

/** The Mermaid text of the path: a node per state visited, an edge per move (repeated moves drawn once). */
export function pathMermaid(path: readonly string[]): string {
  const lines = ['stateDiagram-v2'];
  for (const state of new Set(path))
    lines.push(`  state "${STATE_WORDS[state as PullRequestState] ?? state}" as ${state}`);
  if (path.length > 0) lines.push(`  [*] --> ${path[0]}`);
  const edges = new Set<string>();
  for (let index = 1; index < path.length; index++) {
    const edge = `  ${path[index - 1]} --> ${path[index]}`;
    if (!edges.has(edge)) lines.push(edge);
    edges.add(edge);
  }
  return `${lines.join('\n')}\n`;
}

/** The path's chart as SVG (cached by path: PRs share few of them). */
export function pathSvg(path: readonly string[]): string {
  const key = path.join(' ');
  let svg = cache.get(key);
  if (svg === undefined) {
    svg = renderMermaidSVG(pathMermaid(path))
      .replace(/^\s*@import url\([^)]*\);\s*$/m, '')
      .replace(
        '<svg ',
        `<svg role="img" aria-label="${escapeHtml(`path taken: ${path.map((state) => STATE_WORDS[state as PullRequestState] ?? state).join(', then ')}`)}" `,
      );
    if (cache.size > 500) cache.clear();
    cache.set(key, svg);
  }
  return svg;
}
