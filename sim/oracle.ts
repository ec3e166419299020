/**
 * The oracle baseline: a queue that knows which PRs are broken and how long each PR's run lasts. It rejects each
 * broken PR when it arrives, without a run, and tests each good PR once, alone, as soon as it arrives, with unlimited
 * CI and no flakes; the PR merges when its run ends. Its run lasts the PR's own duration (`prDurationMs`): the same
 * draw as every run that tests that PR alone in every configuration.
 *
 * The timeout: a run that outlasts `testingTimeoutMinutes` is cancelled in a queue, and its PR with it. The oracle
 * applies the strictest timeout of the simulation's queues (every configuration's, and the single queue's, the
 * default 300 minutes): a PR whose run would outlast it is not tested (the oracle knows it would be cancelled) and
 * leaves, cancelled, when the timeout passes; a queue with a longer timeout can merge it, but not before its run
 * ends, so its time to merge is censored there (`mergesNotBefore`).
 *
 * Why it is a lower bound (sim/README.md has the argument): in a queue without batching, optimistic merge or direct
 * merge, a PR merges only when a run testing it alone has passed, and that run started after the PR arrived and lasted
 * the PR's own duration; so no PR merges sooner than in the oracle, and every merged or kicked PR cost at least one
 * such run.
 */
import { DEFAULT_SETTINGS, type QueuePatch } from '../engine/model/queues.js';
import type { Arrival } from './arrivals.js';
import { prDurationMs } from './ci.js';
import type { PrOutcome, QueueOutcome, RunOutcome } from './queueRun.js';
import type { Scenario } from './scenario.js';

const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;

/** The timeout the oracle applies: the strictest of the queues it is compared with (their settings). */
export function oracleTimeoutMinutes(settings: readonly QueuePatch[]): number {
  return Math.min(...settings.map((patch) => patch.testingTimeoutMinutes ?? DEFAULT_SETTINGS.testingTimeoutMinutes));
}

export function runOracle(
  scenario: Scenario,
  seed: number,
  arrivals: readonly Arrival[],
  timeoutMinutes: number,
): QueueOutcome {
  const arrivalsEnd = scenario.hours * HOUR_MS;
  const limit = arrivalsEnd + scenario.drainHours * HOUR_MS;
  const timeout = timeoutMinutes * MINUTE_MS;
  const durations = { seed, medianMinutes: scenario.ci.medianMinutes, p90Minutes: scenario.ci.p90Minutes };
  const prs: PrOutcome[] = [];
  const runs: RunOutcome[] = [];
  let lastLeft = 0;
  for (const arrival of arrivals) {
    const pr = { number: arrival.number, arrivedAt: arrival.at, broken: arrival.broken };
    if (arrival.broken) {
      prs.push({ ...pr, state: 'FAILED', leftAt: arrival.at });
      continue;
    }
    const duration = prDurationMs(durations, arrival.number);
    if (duration > timeout) {
      // Its run would be cancelled in every queue with this timeout: not tested, cancelled when the timeout passes.
      const cancelledAt = arrival.at + timeout;
      if (cancelledAt <= limit) {
        prs.push({ ...pr, state: 'CANCELLED', leftAt: cancelledAt, mergesNotBefore: arrival.at + duration });
        lastLeft = Math.max(lastLeft, cancelledAt);
      } else prs.push({ ...pr, state: 'PENDING', leftAt: null });
      continue;
    }
    const ends = arrival.at + duration;
    const done = ends <= limit;
    runs.push({
      id: `oracle_${arrival.number}`,
      kind: 'main',
      status: done ? 'succeeded' : 'in_progress',
      startedAt: arrival.at,
      endedAt: Math.min(ends, limit),
      prs: [arrival.number],
      basePrs: [],
    });
    prs.push({ ...pr, state: done ? 'MERGED' : 'TESTING', leftAt: done ? ends : null });
    if (done) lastLeft = Math.max(lastLeft, ends);
  }
  const unfinished = prs.some((pr) => pr.leftAt === null);
  return { prs, runs, endAt: unfinished ? limit : Math.max(arrivalsEnd, lastLeft), events: 0, saturated: false };
}
