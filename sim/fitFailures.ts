/**
 * Broken and flaky rates from a queue's outcomes and runs (its bisections included), fitted together by expectation–
 * maximisation. The model is the simulator's: a PR is broken with probability b, and then every run holding it fails;
 * any other run fails spuriously with probability q.
 *
 * A merged PR is good. A kicked one (FAILED) is broken, or good and kicked by flakes. What tells them apart are its
 * **clean runs**: runs with a verdict in which every other PR (under test or ahead) merged, so that it alone can have
 * failed them. A clean run that passed proves it good; k clean runs that all failed leave it broken with posterior
 * b / (b + (1 − b) q^k). The flake rate is the failure share of runs whose PRs all merged, plus the clean runs of the
 * kicked PRs as far as they are taken to be good: counting only runs of merged PRs would miss exactly the flakes that
 * kicked good PRs. Intervals: a bootstrap over the PRs and the runs of merged PRs.
 */
import type { QueueHistory } from './history.js';
import { bootstrap, type Estimate } from './stats.js';

interface KickedPr {
  failedClean: number;
  passedClean: number;
}

interface Evidence {
  /** Runs with a verdict whose PRs all merged: true when it failed. */
  mergedRuns: boolean[];
  kicked: KickedPr[];
  /** PRs that merged or were kicked. */
  resolved: number;
}

function solve(evidence: Evidence): { b: number; q: number } {
  const runs = evidence.mergedRuns.length;
  const runFailures = evidence.mergedRuns.filter(Boolean).length;
  let b = evidence.kicked.length / Math.max(1, evidence.resolved);
  let q = runs === 0 ? 0.01 : Math.max(1e-6, runFailures / runs);
  for (let round = 0; round < 200; round++) {
    let brokenMass = 0;
    let flakeFailures = runFailures;
    let flakeTrials = runs;
    for (const pr of evidence.kicked) {
      const broken = pr.passedClean > 0 ? 0 : b / (b + (1 - b) * q ** pr.failedClean);
      brokenMass += broken;
      flakeFailures += (1 - broken) * pr.failedClean;
      flakeTrials += (1 - broken) * (pr.failedClean + pr.passedClean);
    }
    const nextB = brokenMass / Math.max(1, evidence.resolved);
    const nextQ = flakeTrials === 0 ? 0 : flakeFailures / flakeTrials;
    const done = Math.abs(nextB - b) < 1e-9 && Math.abs(nextQ - q) < 1e-9;
    b = nextB;
    q = nextQ;
    if (done) break;
  }
  return { b, q };
}

export function fitFailures(history: QueueHistory): { broken: Estimate; flake: Estimate; notes: string[] } {
  const state = new Map(history.prs.map((pr) => [pr.number, pr.state]));
  const merged = (number: number) => state.get(number) === 'MERGED';
  const mergedRuns: boolean[] = [];
  const kicked = new Map<number, KickedPr>();
  for (const pr of history.prs) if (pr.state === 'FAILED') kicked.set(pr.number, { failedClean: 0, passedClean: 0 });
  for (const run of history.runs) {
    if (run.status !== 'succeeded' && run.status !== 'failed') continue;
    const failed = run.status === 'failed';
    const unknown = [...run.prs, ...run.basePrs].filter((number) => !merged(number));
    if (unknown.length === 0) mergedRuns.push(failed);
    else if (unknown.length === 1) {
      const pr = kicked.get(unknown[0] as number);
      if (pr === undefined) continue;
      if (failed) pr.failedClean++;
      else pr.passedClean++;
    }
  }
  const resolved = history.prs.filter((pr) => pr.state === 'MERGED' || pr.state === 'FAILED').length;
  const kickedList = [...kicked.values()];
  const evidence: Evidence = { mergedRuns, kicked: kickedList, resolved };
  const { b, q } = solve(evidence);
  // Resample PRs (merged ones as their count in `resolved`, kicked ones with their runs) and the runs of merged PRs.
  type Unit = { kind: 'run'; failed: boolean } | { kind: 'kicked'; pr: KickedPr } | { kind: 'merged' };
  const units: Unit[] = [
    ...mergedRuns.map((failed): Unit => ({ kind: 'run', failed })),
    ...kickedList.map((pr): Unit => ({ kind: 'kicked', pr })),
    ...Array.from({ length: resolved - kickedList.length }, (): Unit => ({ kind: 'merged' })),
  ];
  const resampled = (sample: readonly Unit[]) => {
    const runs = sample
      .filter((unit): unit is Extract<Unit, { kind: 'run' }> => unit.kind === 'run')
      .map((unit) => unit.failed);
    const prs = sample
      .filter((unit): unit is Extract<Unit, { kind: 'kicked' }> => unit.kind === 'kicked')
      .map((unit) => unit.pr);
    return solve({
      mergedRuns: runs,
      kicked: prs,
      resolved: prs.length + sample.filter((unit) => unit.kind === 'merged').length,
    });
  };
  // One bootstrap for both figures: the same resamples.
  const pairs: { b: number; q: number }[] = [];
  bootstrap(units, (sample) => {
    const fit = resampled(sample);
    pairs.push(fit);
    return fit.b;
  });
  const band = (values: number[]) => {
    const sorted = [...values].sort((x, y) => x - y);
    const at = (p: number) => sorted[Math.round(p * (sorted.length - 1))] ?? 0;
    return { low: at(0.025), high: at(0.975) };
  };
  const notes: string[] = [];
  const unexplained = kickedList.filter((pr) => pr.failedClean === 0 && pr.passedClean === 0).length;
  if (unexplained > 0)
    notes.push(
      `${unexplained} kicked PR${unexplained === 1 ? ' has' : 's have'} no clean run (every run that tested them held another unmerged PR): counted broken at the fitted rate`,
    );
  return {
    broken: { value: b, ...band(pairs.map((pair) => pair.b)), n: resolved },
    flake: {
      value: q,
      ...band(pairs.map((pair) => pair.q)),
      n: mergedRuns.length + kickedList.reduce((sum, pr) => sum + pr.failedClean + pr.passedClean, 0),
    },
    notes,
  };
}
