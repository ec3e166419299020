import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { EngineError } from '../../engine/model/errors.js';
import { renderMetrics, WINDOW_MS } from '../../engine/metrics/index.js';
import { KEY, QueueHarness } from '../engine/queueHarness.js';
import { Exposition, MINUTE } from './helpers.js';

/** The scrape without the one service-wide figure that depends on the store's file layout. */
const comparable = (text: string) => text.replace(/^greenline_store_size_bytes .*$/m, '');

const MAIN = { repo: 'acme/widgets', branch: 'main', queue_type: 'main' };

type Action =
  | { kind: 'submit'; number: number }
  | { kind: 'cancel'; number: number }
  | { kind: 'restart'; number: number }
  | { kind: 'report'; pick: number; success: boolean }
  | { kind: 'advance'; minutes: number };

const number = fc.integer({ min: 1, max: 6 });
const actions = fc.array(
  fc.oneof(
    { weight: 4, arbitrary: fc.record({ kind: fc.constant('submit' as const), number }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), number }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('restart' as const), number }) },
    {
      weight: 6,
      arbitrary: fc.record({ kind: fc.constant('report' as const), pick: fc.nat(3), success: fc.boolean() }),
    },
    {
      weight: 3,
      arbitrary: fc.record({ kind: fc.constant('advance' as const), minutes: fc.integer({ min: 1, max: 45 }) }),
    },
  ),
  { minLength: 1, maxLength: 30 },
);
const settings = fc.record({
  concurrency: fc.integer({ min: 1, max: 3 }),
  batch: fc.boolean(),
  batchingMinSize: fc.integer({ min: 2, max: 3 }),
  canOptimisticallyMerge: fc.boolean(),
  pendingFailureDepth: fc.integer({ min: 0, max: 1 }),
});

/** Plays a workload on a fresh engine; `crashAfter` crashes it after that many committed inputs and restores it. */
async function play(initial: Record<string, unknown>, steps: Action[], crashAfter?: number): Promise<QueueHarness> {
  const h = new QueueHarness();
  const recover = h.crashAfter(crashAfter);
  await h.create(initial);
  await recover();
  for (const step of steps) {
    try {
      if (step.kind === 'submit') h.engine.submitPullRequest(KEY, step.number);
      else if (step.kind === 'cancel') h.engine.cancelPullRequest(KEY, step.number);
      else if (step.kind === 'restart') h.engine.restartTestsOnPullRequest(KEY, step.number);
      else if (step.kind === 'advance') h.scheduler.advanceBy(step.minutes * MINUTE);
      else {
        const active = h.activeRuns().filter((run) => run.testBranchSha !== '');
        const run = active[step.pick % Math.max(1, active.length)];
        if (run !== undefined)
          h.engine.setCommitStatus(KEY.org, {
            repo: KEY.repo,
            sha: run.testBranchSha,
            context: 'ci',
            state: step.success ? 'success' : 'failure',
          });
      }
    } catch (error) {
      if (!(error instanceof EngineError)) throw error;
    }
    await h.engine.settle();
    await recover();
  }
  return h;
}

async function metricsOf(h: QueueHarness): Promise<Exposition> {
  return new Exposition((await renderMetrics({ store: h.store, org: 'acme', now: h.scheduler.now() })).text);
}

const sum = (values: (number | undefined)[]) => values.reduce<number>((total, value) => total + (value ?? 0), 0);

describe('on random workloads', () => {
  test('the metrics agree with the timeline and the test runs', async () => {
    await fc.assert(
      fc.asyncProperty(settings, actions, async (initial, steps) => {
        const h = await play(initial, steps);
        const scraped = await metricsOf(h);
        const now = h.scheduler.now();
        const { timeline, runs, prs } = h.store.read((tx) => ({
          timeline: [...tx.scan('timeline', { prefix: [h.queueId] })].map((entry) => entry.value),
          runs: [...tx.scan('testRuns', { prefix: [h.queueId] })].map((entry) => entry.value),
          prs: [...tx.scan('pullRequests', { prefix: [h.queueId] })].map((entry) => entry.value),
        }));
        const queue = { repo_host: 'github.com', repo: 'acme/widgets', branch: 'main' };
        const types = ['main', 'bisection'];
        for (const conclusion of ['merged', 'failed', 'cancelled']) {
          const all = timeline.filter((entry) => entry.event === conclusion);
          const recent = all.filter((entry) => Date.parse(entry.at) > now - WINDOW_MS);
          expect(
            sum(
              types.map((type) =>
                scraped.value('greenline_pr_conclusions_total', { ...queue, queue_type: type, conclusion }),
              ),
            ),
          ).toBe(all.length);
          expect(
            sum(
              types.map((type) =>
                scraped.value('mq_pr_conclusions_1h_total', { ...MAIN, queue_type: type, conclusion }),
              ),
            ),
          ).toBe(recent.length);
        }
        expect(
          sum(types.map((type) => scraped.value('greenline_ci_runs_started_total', { ...queue, queue_type: type }))),
        ).toBe(runs.length);
        for (const type of types) {
          const ofType = runs.filter((run) => run.kind === type);
          expect(scraped.value('greenline_ci_runs_started_total', { ...queue, queue_type: type })).toBe(ofType.length);
          for (const status of ['succeeded', 'failed', 'cancelled'] as const) {
            const ended = ofType.filter((run) => run.status === status);
            expect(scraped.value('greenline_ci_runs_finished_total', { ...queue, queue_type: type, status })).toBe(
              ended.length,
            );
            const seconds = sum(ended.map((run) => (Date.parse(run.endedAt ?? '') - Date.parse(run.createdAt)) / 1000));
            expect(scraped.value('greenline_ci_run_seconds_total', { ...queue, queue_type: type, status })).toBeCloseTo(
              seconds,
              6,
            );
          }
        }
        const enqueued = prs.filter((pr) => !['MERGED', 'FAILED', 'CANCELLED'].includes(pr.state));
        const gauge = (name: string) => sum(types.map((type) => scraped.value(name, { ...MAIN, queue_type: type })));
        expect(gauge('mq_depth_current')).toBe(enqueued.filter((pr) => pr.state !== 'NOT_READY').length);
        expect(gauge('mq_awaiting_mergeability')).toBe(enqueued.filter((pr) => pr.state === 'NOT_READY').length);
        expect(gauge('mq_testing_slots_active')).toBe(enqueued.filter((pr) => pr.state === 'TESTING').length);
        // Durations are never negative and a PR never waits or tests longer than it was in the queue.
        for (const type of types) {
          const inQueue = scraped.histogram('mq_pr_time_in_queue_1h_seconds', { ...MAIN, queue_type: type });
          const tested = scraped.histogram('mq_pr_test_duration_1h_seconds', { ...MAIN, queue_type: type });
          expect(tested?.sum ?? 0).toBeLessThanOrEqual(inQueue?.sum ?? 0);
          expect(tested?.count ?? 0).toBeLessThanOrEqual(inQueue?.count ?? 0);
        }
      }),
      { numRuns: 40 },
    );
  });

  test('a crash after any transaction, then a restore, gives the same metrics as no crash', async () => {
    let crashes = 0;
    await fc.assert(
      fc.asyncProperty(settings, actions, fc.nat(), async (initial, steps, pick) => {
        const clean = await play(initial, steps);
        // A crash right after one of the transactions the clean run made, any of them.
        const crashAfter = 1 + (pick % clean.engine.eventLog(clean.queueId).length);
        const crashed = await play(initial, steps, crashAfter);
        crashes += crashed.restores;
        expect(crashed.scheduler.now()).toBe(clean.scheduler.now());
        expect(comparable((await metricsOf(crashed)).text)).toBe(comparable((await metricsOf(clean)).text));
      }),
      { numRuns: 40 },
    );
    // Every workload crashed once.
    expect(crashes).toBe(40);
  });
});
