/**
 * Which of a queue's PRs are broken, drawn afresh for a forked simulation (fork.ts) from what the queue's state tells:
 *
 * - a PR that merged, or was in a run that passed, is good (a run holding a broken PR never passes);
 * - a PR that left the queue keeps what it truly was (it failed alone to leave: the flake that may have caused it is
 *   the one thing this leaves known);
 * - every other PR of the queue is broken with the scenario's rate, given the runs that failed: a draw is kept with the
 *   chance that it explains them (1 for a failed run holding a broken PR, the flake rate for one holding none), by
 *   rejection, so the draws follow the posterior.
 */
import type { PullRequestRecord } from '../engine/model/pullRequests.js';
import type { TestRunRecord } from '../engine/model/testRuns.js';
import { isEnqueued } from '../machines/vocabulary.js';
import type { Random } from './random.js';

export interface Evidence {
  /** PRs of the queue whose brokenness is drawn. */
  unknown: number[];
  /** PRs whose brokenness is known: true when broken. */
  known: Map<number, boolean>;
  /** The PRs of each run that failed and holds an unknown PR (its base PRs and PRs under test). */
  failed: number[][];
}

const MAX_DRAWS = 2000;

export function evidenceOf(
  prs: readonly PullRequestRecord[],
  runs: readonly TestRunRecord[],
  trulyBroken: (number: number) => boolean,
): Evidence {
  const known = new Map<number, boolean>();
  for (const pr of prs) {
    if (pr.state === 'MERGED') known.set(pr.number, false);
    else if (!isEnqueued(pr.state)) known.set(pr.number, trulyBroken(pr.number));
  }
  for (const run of runs)
    if (run.status === 'succeeded') for (const number of [...run.basePrs, ...run.prs]) known.set(number, false);
  const unknown = prs.filter((pr) => isEnqueued(pr.state) && !known.has(pr.number)).map((pr) => pr.number);
  const open = new Set(unknown);
  const failed = runs.filter((run) => run.status === 'failed').map((run) => [...run.basePrs, ...run.prs]);
  return { unknown, known, failed: failed.filter((tree) => tree.some((number) => open.has(number))) };
}

/** A draw of the unknown PRs (true: broken), from the posterior by rejection; the last draw if none is kept. */
export function drawBroken(
  evidence: Evidence,
  brokenRate: number,
  flakeRate: number,
  random: Random,
): Map<number, boolean> {
  let draw = new Map<number, boolean>();
  for (let attempt = 0; attempt < MAX_DRAWS; attempt++) {
    draw = new Map(evidence.unknown.map((number) => [number, random.chance(brokenRate)]));
    const broken = (number: number) => draw.get(number) ?? evidence.known.get(number) ?? false;
    let keep = 1;
    for (const tree of evidence.failed) if (!tree.some(broken)) keep *= flakeRate;
    if (random.next() < keep) return draw;
  }
  return draw;
}
