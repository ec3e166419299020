/**
 * The P90 served is calibrated by the queue's own record (engine/estimate/calibration.ts): a queue whose past
 * estimates show the play's P90 too low gets a later one, one whose record shows it too wide a sooner one, and either
 * covers the stated share (90 %) of merges drawn from the same world. PRs still waiting count as bounds. With fewer
 * than MIN_SCORES merges scored, the play's own P90 is served.
 */
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { describe, expect, test } from 'vitest';
import { factorOf, MIN_SCORES, SCORE_WINDOW, scoreOf } from '../../engine/estimate/calibration.js';
import { estimateQueue, forecastQueue, type MergeEstimate } from '../../engine/estimate/index.js';
import { normalQuantile } from '../../engine/estimate/durations.js';
import type { PullRequestRecord } from '../../engine/model/pullRequests.js';
import { newQueue } from '../../engine/model/queues.js';
import { createMemoryStore } from '../../engine/store/index.js';

const MINUTE = 60_000;
const NOW = Date.parse('2026-11-22T12:00:00.000Z');
const LINEUP = [11, 12, 13, 14, 15, 16];

function random(seed: number): () => number {
  const source = xoroshiro128plus(seed);
  return () => uniformFloat64(source);
}

/**
 * A world where each PR merges at t + (m − t) · ((p − t) / (m − t))^s of the play's estimate (t, m, p), s normal
 * around 0 with its `covered` quantile at 1: the median is right, and the play's P90 covers that share of merges.
 */
function world(covered: number, seed: number) {
  const sigma = 1 / normalQuantile(covered);
  const next = random(seed);
  const spread = () => sigma * normalQuantile(Math.min(1 - 1e-12, Math.max(1e-12, next())));
  return (estimate: MergeEstimate) =>
    NOW + (estimate.at - NOW) * ((estimate.p90 - NOW) / (estimate.at - NOW)) ** spread();
}

/** A queue with CI history and a line-up of six, its record holding `past` merges of PRs placed as these, scored. */
function queueWith(past: number, merge: (estimate: MergeEstimate) => number) {
  const store = createMemoryStore();
  const queue = newQueue(
    {
      id: 'q_cal',
      org: 'acme',
      repo: { host: 'github', owner: 'acme', name: 'web' },
      branch: 'main',
      now: new Date(NOW).toISOString(),
    },
    { concurrency: 1 },
  );
  queue.runtime.lineup = [...LINEUP];
  const enqueued = LINEUP.map(
    (number) => ({ number, state: 'PENDING', runId: null, readyAt: NOW, group: null }) as unknown as PullRequestRecord,
  );
  store.write((tx) => {
    for (const [index, minutes] of [18, 20, 22, 25, 30, 21, 19, 24].entries())
      tx.put('metricsLog', [queue.id, NOW - (index + 1) * 5 * MINUTE, index, 0], {
        kind: 'runFinished',
        type: 'main',
        status: 'succeeded',
        runMs: minutes * MINUTE,
      });
  });
  const read = (of: typeof estimateQueue) => store.read((tx) => of(tx, queue, enqueued, () => undefined, NOW));
  const play = read(forecastQueue);
  // Past PRs placed as these were, given the same estimates, merged as the world has them.
  const given = LINEUP.slice(1).map((number) => play.get(number)!);
  const ready = Array.from({ length: past }, (_, index) => {
    const estimate = given[index % given.length]!;
    return scoreOf({ t: NOW, m: estimate.at, p: estimate.p90 }, merge(estimate))!;
  });
  store.write((tx) => tx.put('estimateScores', [queue.id], { ready: ready.slice(-SCORE_WINDOW), head: [] }));
  return { served: read(estimateQueue), play };
}

/** The share of fresh merges of the world under the P90 served. */
function coverage(
  served: Map<number, MergeEstimate>,
  play: Map<number, MergeEstimate>,
  merge: (estimate: MergeEstimate) => number,
): number {
  let under = 0;
  let all = 0;
  for (let round = 0; round < 1000; round++) {
    for (const number of LINEUP.slice(1)) {
      if (merge(play.get(number)!) <= served.get(number)!.p90) under++;
      all++;
    }
  }
  return under / all;
}

describe('the P90 calibrated from the queue record', () => {
  test('a record showing the P90 too low: the P90 served is later and covers 90 % of merges', () => {
    const draw = world(0.7, 1);
    const { served, play } = queueWith(SCORE_WINDOW, draw);
    for (const number of LINEUP.slice(1)) {
      expect(served.get(number)!.p90).toBeGreaterThan(play.get(number)!.p90);
      expect(served.get(number)!.at).toBe(play.get(number)!.at);
    }
    expect(coverage(play, play, draw)).toBeLessThan(0.75);
    const share = coverage(served, play, draw);
    expect(share).toBeGreaterThanOrEqual(0.86);
    expect(share).toBeLessThanOrEqual(0.94);
  });

  test('a record showing the P90 too wide: the P90 served is sooner and covers 90 % of merges', () => {
    const draw = world(0.99, 2);
    const { served, play } = queueWith(SCORE_WINDOW, draw);
    for (const number of LINEUP.slice(1)) {
      expect(served.get(number)!.p90).toBeLessThan(play.get(number)!.p90);
      expect(served.get(number)!.p90).toBeGreaterThanOrEqual(served.get(number)!.at);
    }
    expect(coverage(play, play, draw)).toBeGreaterThan(0.97);
    const share = coverage(served, play, draw);
    expect(share).toBeGreaterThanOrEqual(0.86);
    expect(share).toBeLessThanOrEqual(0.94);
  });

  test('PRs still waiting past what the merged ones took count: the P90 widens before they merge', () => {
    const merged = Array.from({ length: MIN_SCORES }, (_, index) => index / (2 * MIN_SCORES));
    expect(factorOf(merged)).toBeLessThan(0.5);
    // As many again given an estimate and still waiting, each already twice the play's spread past its median.
    expect(
      factorOf(
        merged,
        Array.from({ length: MIN_SCORES }, () => 2),
      ),
    ).toBeGreaterThanOrEqual(2);
  });

  test('with fewer merges scored than the least, the play’s own P90 is served', () => {
    const { served, play } = queueWith(MIN_SCORES - 1, world(0.5, 3));
    expect([...served]).toEqual([...play]);
  });
});
