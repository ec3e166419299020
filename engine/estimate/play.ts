/**
 * One trial of the merge forecast (model.ts), played forward: the main line's runs in single mode, or independent lanes
 * in parallel mode, each ending on its drawn duration and deciding by the failures drawn for its PRs.
 */
import { bisect } from './bisectionEstimate.js';
import type { EstimatePr } from './model.js';

export interface Group {
  prs: EstimatePr[];
  startedAt: number | null;
  durationMs: number;
  /** A batch short of its least size starts no sooner than this (ms). */
  notBefore: number;
  /** Its PRs are in a bisection: passing, they are tested again on the main line before they merge. */
  retest?: true;
  /** Its run passed already: it merges once those ahead have, unless one of them fails and it is tested again. */
  passed?: true;
}

export type Draw = (atLeast: number) => number;
type Record = (prs: EstimatePr[], at: number) => void;

function start(group: Group, at: number, draw: Draw): void {
  group.startedAt = Math.max(at, group.notBefore);
  group.durationMs = draw(0);
}

const endOf = (group: Group) => group.startedAt! + group.durationMs;

/**
 * Single mode: the main line's runs start in order while fewer than `concurrency` are under way (a run that ended
 * frees its place at once, its PRs waiting for those ahead, as the planner counts only runs in progress), and a batch
 * still waiting holds back those behind it. The head's end decides: passing, its PRs merge, and so do those behind
 * whose runs ended already; failing, a PR alone leaves, a batch leaves the main line for its bisection, and every run
 * behind, tested on top of a PR that failed, starts again. Off the main line (the bisection pool) each group is
 * tested at once: a group that fails is halved again (a PR alone leaves), one that passes returns to the main line
 * behind the runs started there, to be tested again (in the simulator the PRs the main line took meanwhile stay
 * ahead of it).
 */
export function playSingle(
  groups: Group[],
  bad: Set<number>,
  concurrency: number,
  now: number,
  draw: Draw,
  record: Record,
): void {
  let t = now;
  const line = groups.filter((group) => group.retest !== true);
  const offLine = groups.filter((group) => group.retest === true);
  const isGood = (group: Group) => group.passed === true || group.prs.every((pr) => !bad.has(pr.number));
  const bisected = (prs: EstimatePr[]) => {
    if (prs.length <= 1) return;
    const half = Math.ceil(prs.length / 2);
    for (const part of [prs.slice(0, half), prs.slice(half)])
      offLine.push({ prs: part, startedAt: t, durationMs: draw(0), notBefore: t, retest: true });
  };
  for (const group of offLine) if (group.startedAt === null) start(group, t, draw);
  const running = (group: Group) => group.startedAt !== null && endOf(group) > t;
  const fill = () => {
    let slots = concurrency - line.filter(running).length;
    for (const group of line) {
      if (slots <= 0) break;
      if (group.startedAt !== null) continue;
      start(group, t, draw);
      slots--;
      if (group.startedAt! > t) break;
    }
  };
  while (line.length > 0 || offLine.length > 0) {
    for (const group of offLine.filter((candidate) => endOf(candidate) <= t)) {
      offLine.splice(offLine.indexOf(group), 1);
      if (!isGood(group)) bisected(group.prs);
      else {
        group.retest = undefined;
        group.startedAt = null;
        const at = line.findIndex((other) => other.startedAt === null);
        line.splice(at === -1 ? line.length : at, 0, group);
      }
    }
    fill();
    const head = line[0];
    if (head?.startedAt != null && endOf(head) <= t) {
      line.shift();
      if (isGood(head)) record(head.prs, t);
      else {
        bisected(head.prs);
        for (const group of line) {
          group.startedAt = null;
          group.passed = undefined;
        }
      }
      continue;
    }
    // The next run to end: the head's, one behind it (which frees its place), or one off the main line.
    const ends = [...line.filter(running), ...offLine].map(endOf).filter((end) => end > t);
    if (ends.length === 0) break;
    t = Math.min(...ends);
  }
}

/** Parallel mode: lanes are independent; each run's end decides for its PRs, a failed batch is bisected. */
export function playParallel(
  groups: Group[],
  bad: Set<number>,
  concurrency: number,
  now: number,
  draw: Draw,
  record: Record,
): void {
  let t = now;
  const running = () => groups.filter((group) => group.startedAt !== null);
  const fill = () => {
    let slots = concurrency - running().length;
    for (const group of groups) {
      if (slots <= 0) break;
      if (group.startedAt === null) {
        start(group, t, draw);
        slots--;
      }
    }
  };
  fill();
  while (groups.length > 0) {
    const next = running().reduce((first, group) => (endOf(group) < endOf(first) ? group : first));
    t = Math.max(t, endOf(next));
    const passed = next.passed === true || next.prs.every((pr) => !bad.has(pr.number));
    if (passed && next.retest === true) {
      next.retest = undefined;
      start(next, t, draw);
      continue;
    }
    groups.splice(groups.indexOf(next), 1);
    if (passed) record(next.prs, t);
    else bisect(next.prs, bad, t, draw, record);
    fill();
  }
}
