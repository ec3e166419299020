/**
 * The oracle baseline: a queue that knows which PRs are broken. It rejects each broken PR when it arrives, without a
 * run, and tests each good PR once, as soon as it arrives, with unlimited CI and no flakes; the PR merges when its run
 * ends. Nothing can merge sooner, so its time-to-merge is the lower bound for every configuration (it is the CI
 * duration itself), and its CI cost — one run per merged PR — the least any queue can spend.
 */
import { logNormalMs, uniforms } from '../engine/providers/simCi.js';
import type { Arrival } from './arrivals.js';
import type { PrOutcome, QueueOutcome, RunOutcome } from './queueRun.js';
import type { Scenario } from './scenario.js';

const HOUR_MS = 3_600_000;

export function runOracle(scenario: Scenario, seed: number, arrivals: readonly Arrival[]): QueueOutcome {
  const arrivalsEnd = scenario.hours * HOUR_MS;
  const limit = arrivalsEnd + scenario.drainHours * HOUR_MS;
  const prs: PrOutcome[] = [];
  const runs: RunOutcome[] = [];
  let lastLeft = 0;
  for (const arrival of arrivals) {
    if (arrival.broken) {
      prs.push({ number: arrival.number, arrivedAt: arrival.at, broken: true, state: 'FAILED', leftAt: arrival.at });
      continue;
    }
    const [u1, u2] = uniforms(seed, `oracle:${arrival.number}`);
    const ends = arrival.at + logNormalMs(scenario.ci.medianMinutes, scenario.ci.p90Minutes, u1, u2);
    const done = ends <= limit;
    runs.push({ id: `oracle_${arrival.number}`, kind: 'main', status: done ? 'succeeded' : 'in_progress', startedAt: arrival.at, endedAt: Math.min(ends, limit), prs: [arrival.number], basePrs: [] });
    prs.push({ number: arrival.number, arrivedAt: arrival.at, broken: false, state: done ? 'MERGED' : 'TESTING', leftAt: done ? ends : null });
    if (done) lastLeft = Math.max(lastLeft, ends);
  }
  const unfinished = prs.some((pr) => pr.leftAt === null);
  return { prs, runs, endAt: unfinished ? limit : Math.max(arrivalsEnd, lastLeft), events: 0 };
}
